"""Shared fixtures: the package under test and the CLI it must agree with.

scripts/test.sh runs the suite with PYTHONPATH=build/release/python and
TILEPLAN_CLI=build/release/tileplan; without them, the release build tree of
this checkout is used.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "release"
try:
    import tileplan  # noqa: F401
except ImportError:
    sys.path.insert(0, str(BUILD / "python"))

CLI = pathlib.Path(os.environ.get("TILEPLAN_CLI", BUILD / "tileplan"))


def run_cli(*args):
    """(exit status, stdout, stderr) of `tileplan ARGS`."""
    assert CLI.exists(), f"{CLI}: build the CLI first (cmake --build --preset release)"
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    rc, out, err = run_cli(*args, "--format", "json")
    assert rc == 0, err
    return json.loads(out)


def cli_error(*args):
    """The one-line message of a refused command, without "tileplan: "."""
    rc, out, err = run_cli(*args)
    assert rc == 2, (rc, out, err)
    assert out == ""
    assert err.startswith("tileplan: ") and err.endswith("\n") and err.count("\n") == 1, err
    return err[len("tileplan: "):-1]


def run_script(script, *args, timeout=600):
    """The CompletedProcess of `python3 SCRIPT --tileplan CLI ARGS` (a script
    of scripts/ that runs the CLI), from the repository's root."""
    return subprocess.run([sys.executable, str(script), "--tileplan", str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def script_error(p, prefix):
    """A script's refusal (a CompletedProcess): exit 2, nothing on stdout,
    one line on stderr that starts with `prefix`."""
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and p.stderr.startswith(prefix), p.stderr


# Flags whose keyword is not the flag's name with '_' for '-'.
KEYWORD_OF_FLAG = {"topk": "top_k"}


def as_keywords(message):
    """A CLI message with each --flag-name written as the keyword flag_name."""
    return re.sub(r"--([a-z][a-z0-9-]*)",
                  lambda m: KEYWORD_OF_FLAG.get(m.group(1), m.group(1).replace("-", "_")), message)


@pytest.fixture
def cli():
    return run_cli
