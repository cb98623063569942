"""The configuration rows of a harness dataset's timings.jsonl, checked as
they are read (scripts/padding_pairs.py, scripts/stage_pairs.py).

  for m, n, k, dtype, a_layout, b_layout, key, ms in rows(path, fail): ...

yields every timed row of one unsplit configuration of a packed problem
(key BMxBNxBKsS_wW; no split_k above 1, no explicit leading dimension), and
calls fail(message) with "PATH:LINE: what is wrong" on a row that is not a
JSON object with a string key, positive integer M, N and K and a positive
finite ms. Standard library only.
"""

import json
import math
import re

CONFIG_KEY = re.compile(r"^(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)$")


def rows(path, fail):
    with open(path) as f:
        for no, line in enumerate(f, 1):
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
