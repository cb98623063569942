"""What the scripts that read harness datasets share (padding_pairs.py,
stage_pairs.py, predicted_vs_measured.py): one-line refusals, the checked
rows of a dataset, and `tileplan tile`'s JSON.

  fail, Parser = refusal("name.py")    # fail(message): "name.py: message", exit 2
  for m, n, k, dtype, a_layout, b_layout, key, ms in rows(path, fail): ...
  plan = tile_json([tileplan, "tile", ...], fail, "what")

rows() yields every timed row of one unsplit configuration of a packed problem
(key BMxBNxBKsS_wW; no split_k above 1, no explicit leading dimension), and
calls fail(message) with "PATH:LINE: what is wrong" on a row that is not a
JSON object with a string key, positive integer M, N and K and a positive
finite ms. Standard library only.
"""

import argparse
import json
import math
import re
import subprocess
import sys

CONFIG_KEY = re.compile(r"^(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)$")


def refusal(prog):
    """fail(message) and an argparse parser class for the script `prog`: a
    refusal is one line on stderr, "PROG: message", and exit status 2."""
    def fail(message):
        print(f"{prog}: {message}", file=sys.stderr)
        sys.exit(2)

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            fail(message)

    return fail, Parser


def tile_json(args, fail, what):
    """The JSON that `tileplan tile` (args[0] the program) prints; fail()
    when the program cannot be run or refuses (its message, on one line)."""
    try:
        r = subprocess.run(args, capture_output=True, text=True)
    except OSError as e:
        fail(f"--tileplan {args[0]}: cannot run it ({e.strerror or e})")
    if r.returncode != 0:
        fail(f"{what}: tileplan tile: {' '.join(r.stderr.split())}")
    return json.loads(r.stdout)


def rows(path, fail):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot be read as UTF-8 text ({getattr(e, 'strerror', None) or e})")
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{no}"
        try:
            r = json.loads(line)
        except ValueError:
            fail(f"{where}: not a JSON object")
        if not isinstance(r, dict) or not isinstance(r.get("key"), str):
            fail(f"{where}: a row is a JSON object with a string \"key\"")
        if r.get("ms") is None or not CONFIG_KEY.match(r["key"]) or r.get("split_k", 1) != 1:
            continue
        if r.get("lda") or r.get("ldb") or r.get("ldc"):
            continue
        dims = [r.get(d) for d in "MNK"]
        if not all(type(d) is int and d > 0 for d in dims):
            fail(f"{where}: M, N and K must be positive integers")
        ms = r["ms"]
        if type(ms) not in (int, float) or not 0 < ms < math.inf:
            fail(f"{where}: ms must be a positive finite number of milliseconds, got {ms!r}")
        yield (*dims, r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row"), r["key"], ms)
