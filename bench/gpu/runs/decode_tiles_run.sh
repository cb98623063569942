# Sourced by the decode-tile run scripts: run NAME DEADLINE BLOCK_MS SPLITS
# SHAPES measures one divisibility class with the split-K harness's workspace
# variant (CUDA-graph timing, every shape held out) into $D/NAME, its log
# $D/NAME.log, and prints the harness's summary lines; run_typed NAME DEADLINE
# DTYPE SHAPES does the same in one input type with block_M 16, 32 and 64 and
# the harness's default split factors; run_split_typed NAME DEADLINE DTYPE
# BLOCK_MS SHAPES does the same with the block_Ms given and the split
# factors of $S, and the harness flags of $HARNESS_FLAGS (e.g. --b-kmajor).
run() {  # name deadline block_ms splits shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms $3 --splits $4 --deadline-s $2 --out $D/$1 --shapes $5 > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-200 | head -8
}
run_typed() {  # name deadline dtype shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms 16,32,64 --dtype $3 --deadline-s $2 --out $D/$1 --shapes $4 > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-160 | head -12
}
run_split_typed() {  # name deadline dtype block_ms shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms $4 --splits $S --dtype $3 --deadline-s $2 --out $D/$1 --shapes $5 ${HARNESS_FLAGS:-} > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-160 | head -12
}
