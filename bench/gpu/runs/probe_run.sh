# Sourced by the Nsight Compute run scripts: probe NAME DTYPE SHAPE KERNELS
# [FLAG...] runs bench/gpu/decode_ncu_probe.py --ncu on KERNELS of SHAPE into
# $D/NAME (its log $D/NAME.log) and prints its status and last lines.
probe() {  # name dtype shape kernels [flags]
  local name=$1 dtype=$2 shape=$3 kernels=$4
  shift 4
  timeout 280 python3 bench/gpu/decode_ncu_probe.py --ncu --reps 100 --out $D/$name --dtype $dtype "$@" \
    --shape $shape --kernels $kernels > $D/$name.log 2>&1
  echo "$name rc $?"; tail -3 $D/$name.log | cut -c1-300
}
