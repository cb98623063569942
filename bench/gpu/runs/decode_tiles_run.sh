# Sourced by the decode-tile run scripts (decode_tiles_fresh.sh,
# decode_tiles_mid.sh): run NAME DEADLINE BLOCK_MS SPLITS SHAPES measures one
# divisibility class with the split-K harness's workspace variant (CUDA-graph
# timing, every shape held out) into $D/NAME, its log $D/NAME.log, and prints
# the harness's summary lines.
run() {  # name deadline block_ms splits shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms $3 --splits $4 --deadline-s $2 --out $D/$1 --shapes $5 > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-200 | head -8
}
