#!/bin/bash
# One device call: the fp8 calibration set v45 (data/h200-triton-v45), then
# the two fp8 shapes of data/h200-triton-mfew again with the whole grid and
# cuBLAS beside (data/h200-triton-mfew-fp8-again), from the warm cache.
# data/ is over a device call's 64 MiB: it is moved out of the tree for the
# call (the harness reads none of it) and back after.
set -u
export PYTHONUNBUFFERED=1
timeout 430 python3 bench/gpu/triton_gemm_harness.py --shapes v45 --deadline-s 410 --out $OUT/v45 > $OUT/v45.log 2>&1
echo "v45 rc $?"; tail -6 $OUT/v45.log | cut -c1-200
cp $OUT/v45.log $OUT/v45/log.txt
S=4x8192x8192:float8_e4m3:rc,6x4096x14336:float8_e4m3:rc
timeout 140 python3 bench/gpu/triton_gemm_harness.py --shapes $S --deadline-s 120 --out $OUT/mfew-fp8-again > $OUT/mfew-fp8-again.log 2>&1
echo "again rc $?"; tail -4 $OUT/mfew-fp8-again.log | cut -c1-200
# Both shapes are held out (explicit shapes fall in neither list).
python3 - "$OUT/mfew-fp8-again/split.json" <<'PY'
import json, sys
json.dump({"calibration": [], "held_out": ["4x8192x8192:float8_e4m3:rc", "6x4096x14336:float8_e4m3:rc"]}, open(sys.argv[1], "w"), indent=1)
PY
cp $OUT/mfew-fp8-again.log $OUT/mfew-fp8-again/log.txt
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $OUT/smi.txt
cp $OUT/smi.txt $OUT/v45/; cp $OUT/smi.txt $OUT/mfew-fp8-again/
tar czf $OUT/res.tgz -C $OUT v45 mfew-fp8-again
