#!/bin/bash
# Device run of data/h200-triton-v43 (calibration), after nmajor_wide_unit_cost
# was frozen, for the copy time of a stage: one call. data/ is over a device call's 64 MiB, so it
# was moved out of the tree for the call (the harness reads none of it).
set -u
python3 bench/gpu/triton_gemm_harness.py --shapes v43 --deadline-s 500 --out $OUT/v43 > /tmp/v43.log 2>&1
rc=$?
cp /tmp/v43.log $OUT/v43/log.txt
tail -22 /tmp/v43.log
exit $rc
