"""The README's screens of `tileplan tile`, `loop` and `occupancy` are what the tool prints today."""

import pathlib
import re
import shlex

import pytest

from conftest import run_cli

ROOT = pathlib.Path(__file__).resolve().parents[2]


def screens():
    """(line number, command, expected output) of every one-line `$ tileplan ...` in a README code block."""
    lines = (ROOT / "README.md").read_text().split("\n")
    found, in_block = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_block = not in_block
            continue
        m = re.match(r"^\$ tileplan (tile|loop|occupancy)\b(.*)$", line)
        if not in_block or not m or line.endswith("\\"):
            continue
        out = []
        for nxt in lines[i + 1:]:
            if nxt.startswith("$ ") or nxt.startswith("```"):
                break
            out.append(nxt)
        found.append((i + 1, line[2:], out))
    return found


def test_the_readme_has_screens():
    assert len(screens()) >= 5


@pytest.mark.parametrize("line,command,expected", screens(), ids=lambda v: str(v)[:60])
def test_screen_matches_the_tool(line, command, expected):
    rc, out, err = run_cli(*shlex.split(command)[1:])
    assert rc == 0, err
    strip = lambda xs: [x.rstrip() for x in xs if x.strip()]
    assert strip(out.split("\n")) == strip(expected), f"README.md line {line}: {command}"
