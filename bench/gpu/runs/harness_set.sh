#!/bin/bash
# One device call of a named shape set of the GEMM harness (v42, v43, v44,
# ...): bash bench/gpu/runs/harness_set.sh NAME. data/ is over a device
# call's 64 MiB, so it is moved out of the tree for the call (the harness
# reads none of it) and back after.
set -u
name=${1:?usage: harness_set.sh NAME (a --shapes set of bench/gpu/triton_gemm_harness.py)}
python3 bench/gpu/triton_gemm_harness.py --shapes "$name" --deadline-s 500 --out "$OUT/$name" > "/tmp/$name.log" 2>&1
rc=$?
cp "/tmp/$name.log" "$OUT/$name/log.txt"
tail -22 "/tmp/$name.log"
exit $rc
