"""What the scripts that read harness datasets share (padding_pairs.py,
stage_pairs.py, predicted_vs_measured.py): one-line refusals, the checked
rows of a dataset, and `tileplan tile`'s JSON.

  fail, Parser = refusal("name.py")    # fail(message): "name.py: message", exit 2
  for m, n, k, dtype, a_layout, b_layout, key, ms in rows(path, fail): ...
  plan = tile_json([tileplan, "tile", ...], fail, "what")
  med = probe_medians(path, fail)      # {((M, N, K, ldb, ldc), key): median ms}
  grids = split_grids(path, fail)      # split-K harness: {(M, N, K, dtype, a, b): {key: ms}}
  plan = split_plan(tileplan, case, keys, fail)  # {key: candidate} over a case's measured grid

rows() yields every timed row of one unsplit configuration of a packed problem
(key BMxBNxBKsS_wW; no split_k above 1, no explicit leading dimension), and
calls fail(message) with "PATH:LINE: what is wrong" on a row that is not a
JSON object with a string key, positive integer M, N and K and a positive
finite ms. Standard library only.
"""

import argparse
import json
import math
import pathlib
import re
import statistics
import subprocess
import sys

CONFIG_KEY = re.compile(r"^(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)$")
PROBE_CASE = re.compile(r"^(\d+)x(\d+)x(\d+)_ldb(\d+)_ldc(\d+)$")


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


def number_list(flag, text, low, high, fail):
    """FLAG's comma list TEXT as sorted distinct floats, 1 to 50 of them, each
    from LOW to HIGH; fail() otherwise."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        fail(f"{flag} {text!r}: not a comma list of numbers")
    if not values or len(values) > 50 or any(not low <= v <= high for v in values):
        fail(f"{flag} {text!r}: 1 to 50 values, each from {low:g} to {high:g}")
    return sorted(set(values))


def family_file(path, fail):
    """The kernel family file PATH (a JSON object with time.constants) as a
    dict; fail() naming --family-file otherwise."""
    try:
        family = json.loads(pathlib.Path(path).read_text())
        family["time"]["constants"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"--family-file {path}: not a family file ({str(e)[:120]})")
    return family


def tile_and_stages(tile, stages, fail):
    """A tile BMxBNxBK_wW and a pair of stage counts "A,B" (different, 1 to
    16) as the two configuration keys BMxBNxBK_sA_wW and BMxBNxBK_sB_wW;
    fail() on either malformed."""
    t = re.match(r"^(\d+)x(\d+)x(\d+)_w(\d+)$", tile)
    if not t:
        fail(f"--tile {tile!r}: a tile is BMxBNxBK_wW, e.g. 256x64x64_w4")
    pair = stages.split(",")
    if len(pair) != 2 or not all(x.isdigit() and 1 <= int(x) <= 16 for x in pair) or pair[0] == pair[1]:
        fail(f"--stages {stages!r}: two different stage counts from 1 to 16, e.g. 3,2")
    bm, bn, bk, w = t.groups()
    return [f"{bm}x{bn}x{bk}_s{x}_w{w}" for x in pair]


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


def json_lines(path, fail):
    """(where, value) for each non-blank line of a JSON Lines file, where is
    "PATH:LINE"; fail() on a line that is not JSON."""
    for no, line in enumerate(read_lines(path, fail), 1):
        if not line.strip():
            continue
        where = f"{path}:{no}"
        try:
            yield where, json.loads(line)
        except ValueError:
            fail(f"{where}: not a JSON object")


def positive_ms(where, ms, fail):
    """ms, or fail() where it is not a positive finite number."""
    if type(ms) not in (int, float) or not 0 < ms < math.inf:
        fail(f"{where}: ms must be a positive finite number of milliseconds, got {ms!r}")
    return ms


def rows(path, fail):
    for where, r in json_lines(path, fail):
        if not isinstance(r, dict) or not isinstance(r.get("key"), str):
            fail(f"{where}: a row is a JSON object with a string \"key\"")
        if r.get("ms") is None or not CONFIG_KEY.match(r["key"]) or r.get("split_k", 1) != 1:
            continue
        if r.get("lda") or r.get("ldb") or r.get("ldc"):
            continue
        dims = [r.get(d) for d in "MNK"]
        if not all(type(d) is int and d > 0 for d in dims):
            fail(f"{where}: M, N and K must be positive integers")
        ms = positive_ms(where, r["ms"], fail)
        yield (*dims, r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row"), r["key"], ms)


SPLIT_KEY = re.compile(r"^(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)_k(\d+)_(none|workspace)$")


def split_grids(path, fail):
    """The checked rows of a split-K harness dataset's timings.jsonl
    (bench/gpu/triton_splitk_harness.py, keys BMxBNxBK_sS_wW_kK_variant of
    the `none` and `workspace` variants, a rel_err recorded) as
    {(M, N, K, dtype, a_layout, b_layout): {key: ms}}; fail() on a row that
    is not a JSON object or has bad dimensions or ms."""
    out = {}
    for where, r in json_lines(path, fail):
        if not isinstance(r, dict):
            fail(f"{where}: not a JSON object")
        key = r.get("key")
        if not isinstance(key, str) or not SPLIT_KEY.match(key) or r.get("rel_err") is None:
            continue
        dims = [r.get(d) for d in "MNK"]
        if not all(type(d) is int and d > 0 for d in dims):
            fail(f"{where}: M, N and K must be positive integers")
        case = (*dims, r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row"))
        out.setdefault(case, {})[key] = positive_ms(where, r.get("ms"), fail)
    return out


def split_plan(tileplan, case, keys, fail, extra=()):
    """`tileplan tile`'s candidates over the grid a split-K harness dataset
    measured for one case: CASE is (M, N, K, dtype) or (M, N, K, dtype,
    a_layout, b_layout), KEYS the case's measured SPLIT_KEY keys, EXTRA more
    flags (--device, --family-file). Returns {key: candidate} for the
    candidates named as the harness names them; fail() when tileplan refuses."""
    m, n, k, dtype = case[:4]
    parts = [SPLIT_KEY.match(key).groups() for key in keys]
    axes = [sorted({int(p[i]) for p in parts}) for i in range(6)]
    layouts = ["--a-layout", case[4], "--b-layout", case[5]] if len(case) > 4 else []
    args = [tileplan, "tile", *extra, "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype, *layouts,
            "--block-m", ",".join(map(str, axes[0])), "--block-n", ",".join(map(str, axes[1])),
            "--block-k", ",".join(map(str, axes[2])), "--stages", ",".join(map(str, axes[3])),
            "--threads", ",".join(str(32 * w) for w in axes[4]), "--split-k", ",".join(map(str, axes[5])),
            "--topk", "0", "--format", "json"]
    out = {}
    for c in tile_json(args, fail, f"{m}x{n}x{k}")["candidates"]:
        variant = "none" if c["split_k"] == 1 else "workspace"
        out[f'{c["block_m"]}x{c["block_n"]}x{c["block_k"]}_s{c["stages"]}_w{c["threads"] // 32}'
            f'_k{c["split_k"]}_{variant}'] = c
    return out


def read_lines(path, fail):
    """The lines of a text file; fail() when it cannot be read as UTF-8."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.readlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot be read as UTF-8 text ({getattr(e, 'strerror', None) or e})")


def probe_medians(path, fail):
    """A probe file of bench/gpu/parity_probe.py (one JSON object per line:
    case "MxNxK_ldbL_ldcC", key BMxBNxBK_sS_wW, round, ms) as the median ms
    of each (case, key) over its rounds, keyed ((M, N, K, ldb, ldc), key);
    fail() on a row that is not such an object with a positive finite ms, or
    on a file without rows."""
    times = {}
    for where, r in json_lines(path, fail):
        if not isinstance(r, dict):
            fail(f"{where}: not a JSON object")
        c = PROBE_CASE.match(str(r.get("case")))
        if not c or not isinstance(r.get("key"), str) or not CONFIG_KEY.match(r["key"]):
            fail(f"{where}: a row has a case MxNxK_ldbL_ldcC and a key BMxBNxBK_sS_wW")
        times.setdefault((tuple(map(int, c.groups())), r["key"]), []).append(positive_ms(where, r.get("ms"), fail))
    if not times:
        fail(f"{path}: no timed rows")
    return {key: statistics.median(v) for key, v in times.items()}
