#!/bin/bash
# Device runs of data/h200-triton-v39 (calibration, the nn.Linear layout) and,
# after kmajor_wide_unit_saving was fitted on it and frozen, -v40 (held out):
# two calls, one set each.
#   v39: python3 bench/gpu/triton_gemm_harness.py --shapes v39 --deadline-s 480 --out $OUT/v39
#   v40: as below.
# The working tree travels to the device with data/, which is over the
# call's 64 MiB: data/ was moved out of the tree for the call (the harness
# reads none of it) and back after.
set -u
python3 bench/gpu/triton_gemm_harness.py --shapes v40 --deadline-s 480 --out $OUT/v40 > /tmp/v40.log 2>&1
rc=$?
cp /tmp/v40.log $OUT/v40/log.txt
tail -22 /tmp/v40.log
exit $rc
