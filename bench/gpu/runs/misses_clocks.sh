#!/bin/bash
# Device run: the worst held-out case of each of the five classes the gate
# leaves out, measured again with the clock of every timing row (the
# harness's ClockSampler): whether the misses are made at a power-capped
# clock, as the H100's many-wave grids are (data/h100-profile-power), and
# whether the pick and the best ran at the same clock. Five divisibility
# classes (about 270 s of compiles with 16 workers). Nothing fitted on it;
# no gate reads it (its cases would count twice).
#   555x14336x12288 fp16 rr:mNK (1.117), 333x5001x4001 fp16 rr:mnk (1.113),
#   6144x7001x4096 bf16 rc:MnK (1.108), 4096x18944x3584 bf16 rc:MNK (1.101),
#   600x7168x7168 fp8 e4m3 rc:mNK (1.1003)
set -u
export PYTHONUNBUFFERED=1
DEADLINE=${DEADLINE:-550}
case "$DEADLINE" in
  ''|*[!0-9]*) echo "misses_clocks.sh: DEADLINE '$DEADLINE': must be whole seconds from 1 to 3600" >&2; exit 2 ;;
esac
if ((10#$DEADLINE < 1 || 10#$DEADLINE > 3600)); then
  echo "misses_clocks.sh: DEADLINE '$DEADLINE': must be whole seconds from 1 to 3600" >&2; exit 2
fi
DEADLINE=$((10#$DEADLINE))
S=555x14336x12288,333x5001x4001,6144x7001x4096:bfloat16:rc,4096x18944x3584:bfloat16:rc,600x7168x7168:float8_e4m3:rc
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/smi-before.txt
timeout $((DEADLINE + 20)) python3 bench/gpu/triton_gemm_harness.py --shapes $S --deadline-s $DEADLINE --out $OUT/clk > $OUT/clk.log 2>&1
echo "rc $?"; tail -8 $OUT/clk.log | cut -c1-220
python3 - "$OUT/clk/split.json" "$S" <<'PY'
import json, sys
json.dump({"calibration": [], "held_out": sys.argv[2].split(",")}, open(sys.argv[1], "w"), indent=1)
PY
cp $OUT/clk.log $OUT/clk/log.txt
cp $OUT/smi-before.txt $OUT/clk/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $OUT/clk/smi.txt
tar czf $OUT/clk.tgz -C $OUT clk
