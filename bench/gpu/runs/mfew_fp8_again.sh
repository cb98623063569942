#!/bin/bash
# Device run: the two fp8 shapes of data/h200-triton-mfew again, the whole
# 216-configuration grid, cuBLAS beside (data/h200-triton-mfew-fp8-again).
# bench/gpu/decode_ncu_probe.py timed cuBLAS 2.4-3.4x faster on them than
# mfew's run did, and the Triton tiles 1.0-1.8x faster.
set -u
export PYTHONUNBUFFERED=1
S=4x8192x8192:float8_e4m3:rc,6x4096x14336:float8_e4m3:rc
timeout 200 python3 bench/gpu/triton_gemm_harness.py --shapes $S --deadline-s 170 --out $OUT/mfew-fp8-again > $OUT/mfew-fp8-again.log 2>&1
echo "rc $?"; tail -4 $OUT/mfew-fp8-again.log | cut -c1-200
# Both shapes are held out (split.json written here: explicit shapes fall in neither list).
python3 - "$OUT/mfew-fp8-again/split.json" <<'PY'
import json, sys
json.dump({"calibration": [], "held_out": ["4x8192x8192:float8_e4m3:rc", "6x4096x14336:float8_e4m3:rc"]}, open(sys.argv[1], "w"), indent=1)
PY
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/mfew-fp8-again/smi.txt
cp $OUT/mfew-fp8-again.log $OUT/mfew-fp8-again/run.log
tar czf $OUT/res.tgz -C $OUT mfew-fp8-again
