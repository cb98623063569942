#!/bin/bash
# Device run of data/h200-triton-v42 (held out), after nmajor_wide_unit_cost
# was fitted and frozen: one call. data/ is over a device call's 64 MiB, so it
# was moved out of the tree for the call (the harness reads none of it).
set -u
python3 bench/gpu/triton_gemm_harness.py --shapes v42 --deadline-s 500 --out $OUT/v42 > /tmp/v42.log 2>&1
rc=$?
cp /tmp/v42.log $OUT/v42/log.txt
tail -22 /tmp/v42.log
exit $rc
