#!/usr/bin/env python3
"""Does B stay in L2 from one group of programs to the next?

Under GROUP_M = 8 a group of programs sweeps every column of B while it keeps
its rows of A; the next group reads B again. The model says B stays in L2
for the next group when it fits beside one group's rows of A (docs/model.md
§3, "DRAM bytes under the grouped order"). On an H100 Nsight Compute says
otherwise: 600x7168x7168 fp8 with 64-row tiles (two groups, B 51 MB) reads B
from DRAM twice (data/h100-profile-misses), and 4096x4096x4096 fp16 with
64x256x64 (eight groups, B 34 MB) about eight times
(data/h100-profile-power).

This probe measures the share of B kept across groups as B, one group's rows
of A and one group's tile rows of C grow against the L2: two tiles (128x128
and 64x256, 4 stages, 4 warps, block_K 128 bytes: 64 for 16-bit types, 128
for fp8; GROUP_M 8) over CASES (fp16, A and B row-major, by default; a case
MxNxK:dtype:LL takes the harness's input types and layouts), every element
of C checked against the fp32 product, then each launched once under Nsight
Compute (its caches flushed before each kernel): DRAM bytes read and
written, the L2's read sectors and hits, the kernel's time.

    python3 bench/gpu/l2_reuse_probe.py --out DIR [--cases C,...] [--keys K,...]

--keys runs the configurations given (harness keys) on every case instead.

Writes DIR/ncu.csv (ncu's --csv output; each tile twice per case, its
checked launch and a second one, in the order of the cases and TILES) and
DIR/rows.jsonl (one line per case and variant: registers, shared memory,
programs, rel_err).
"""
import argparse
import json
import os
import re
import sys
import time

# M = 2048 (two groups of 128-row tiles, four of 64-row ones), K = 4096: B
# from 8 to 100 MB. M = 4096: four and eight groups. K = 1024: C's group
# rows as large as B. K = 16384: A's group rows as large as B.
CASES = [f"2048x{n}x4096" for n in (1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 10240, 12288)] + \
        [f"4096x{n}x4096" for n in (2048, 4096, 6144, 8192)] + \
        [f"2048x{n}x1024" for n in (4096, 8192, 16384, 24576, 32768)] + \
        [f"2048x{n}x16384" for n in (512, 1024, 2048)]
TILES = ["128x128", "64x256"]
DTYPES = {"float16": 2, "bfloat16": 2, "float8_e4m3": 1, "float8_e5m2": 1}


KEYS = None  # --keys: the configurations to run on every case, in place of variants()


def variants(case):
    """The two tiles with block_K of 128 bytes of the case's input type, 4 stages, 4 warps (or --keys)."""
    if KEYS:
        return KEYS
    dtype = case.split(":")[1] if ":" in case else "float16"
    return [f"{t}x{128 // DTYPES[dtype]}_s4_w4" for t in TILES]


def parse_keys(text):
    """--keys as harness keys BMxBNxBK_sS_wW (sizes 16 to 256, stages 1 to 8, warps 4 or 8), 1 to 8 of them."""
    keys = text.split(",")
    ok = 1 <= len(keys) <= 8
    for k in keys:
        m = re.fullmatch(r"(\d+)x(\d+)x(\d+)_s(\d)_w(\d)", k)
        ok = ok and m is not None and all(16 <= int(m[i]) <= 256 for i in (1, 2, 3)) and \
            1 <= int(m[4]) <= 8 and m[5] in ("4", "8")
    if not ok:
        print(f"l2_reuse_probe.py: --keys {text[:80]!r}: must be 1 to 8 keys BMxBNxBK_sS_wW (sizes 16 to 256, "
              f"stages 1 to 8, warps 4 or 8)", file=sys.stderr)
        sys.exit(2)
    return keys
METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"]


def parse_cases(text):
    """Cases as MxNxK (fp16, row-major) or MxNxK:dtype:LL (dtype one of DTYPES, L
    r or c, A then B), each size from 1 to 65536: one line and exit 2 otherwise."""
    out = []
    for c in text.split(","):
        head, _, tail = c.partition(":")
        parts = head.split("x")
        ok = len(parts) == 3 and all(p.isdigit() and 1 <= int(p) <= 65536 for p in parts)
        if tail:
            dtype, _, lay = tail.partition(":")
            ok = ok and dtype in DTYPES and len(lay) == 2 and set(lay) <= {"r", "c"}
        if not ok:
            print(f"l2_reuse_probe.py: --cases {c[:80]!r}: must be MxNxK or MxNxK:dtype:LL, each size from 1 to "
                  f"65536, dtype one of {', '.join(DTYPES)}, L r or c", file=sys.stderr)
            sys.exit(2)
        out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--keys", help="configurations to run on every case (default: the two tiles of variants())")
    ap.add_argument("--one", action="store_true", help="(internal) check and launch every case under ncu")
    args = ap.parse_args()
    cases = parse_cases(args.cases)
    global KEYS
    KEYS = parse_keys(args.keys) if args.keys is not None else None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # on the GPU machine only
    import probe_util as pu
    import triton_gemm_harness as h

    torch.manual_seed(20261207)
    parsed = [h.parse_case(c) for c in cases]
    if args.one:
        with open(os.path.join(args.out, "rows.jsonl"), "w") as f:
            for text, case in zip(cases, parsed):
                for key in variants(text):
                    row, launch = pu.tutorial_variant(h, case, key)
                    assert row["nans"] == 0 and row["rel_err"] < 1e-2, row
                    launch()
                    torch.cuda.synchronize()
                    f.write(json.dumps(row) + "\n")
                torch.cuda.empty_cache()
        return
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    for klass in sorted({c.klass() for c in parsed}):
        keys = sorted({k for text, c in zip(cases, parsed) if c.klass() == klass for k in variants(text)})
        h.compile_all([klass], [h.parse_config_key(k) for k in keys], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    me = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one", "--cases", ",".join(cases)]
    pu.ncu_each([("ncu", me + (["--keys", ",".join(KEYS)] if KEYS else []))], METRICS, args.out)


if __name__ == "__main__":
    main()
