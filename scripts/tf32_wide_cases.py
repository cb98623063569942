#!/usr/bin/env python3
"""The cases of data/h200-triton-v15: tf32's calibration cases (those of
data/h200-triton-v5a and -v11) over the measured grid widened where
data/h200-triton-v13 found faster tf32 tiles: block_N 32 and block_K 16.

Writes {case: [configuration keys]} for the harness's --case-configs:
block_M 64, 128, 256; block_N 32, 64, 128, 256; block_K 16, 32, 64, 128;
2-5 stages; 4 or 8 warps (384 configurations, the 216 of the grid among them).

  python3 scripts/tf32_wide_cases.py > bench/gpu/tf32_wide_cases.json
"""

import json
import sys

CASES = [  # tf32 calibration cases (B N-contiguous): v5a's three, v11's ten
    "4096x4096x4096", "1024x4096x4096", "2048x2048x8192",
    "4096x1024x4096", "8192x4096x1024", "256x4096x8192", "16384x1024x1024", "2048x6144x2048",
    "4096x11008x2048", "1024x8192x2048", "512x2048x8192", "8192x1024x4096", "2048x2048x2048",
]


def main():
    keys = [f"{bm}x{bn}x{bk}_s{s}_w{w}"
            for bm in (64, 128, 256) for bn in (32, 64, 128, 256) for bk in (16, 32, 64, 128)
            for s in (2, 3, 4, 5) for w in (4, 8)]
    json.dump({f"{c}:tfloat32:rr": keys for c in CASES}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
