#!/bin/bash
# Device run of data/h200-triton-v44 (held out), after copy_bytes_per_cycle
# was fitted and frozen: one call. data/ is over a device call's 64 MiB, so it
# was moved out of the tree for the call (the harness reads none of it).
set -u
python3 bench/gpu/triton_gemm_harness.py --shapes v44 --deadline-s 500 --out $OUT/v44 > /tmp/v44.log 2>&1
rc=$?
cp /tmp/v44.log $OUT/v44/log.txt
tail -22 /tmp/v44.log
exit $rc
