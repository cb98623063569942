#!/bin/bash
# Device run: the batch emitter's lists inside a real @triton.autotune
# (bench/gpu/check_batch_emit.py) on the 13 shapes of
# bench/gpu/emit/shapes.txt, with the lists of --topk 3 (the default) and of
# --topk 1, made here by
#   tileplan tile --shapes bench/gpu/emit/shapes.txt --emit triton > bench/gpu/emit/top3.py
#   tileplan tile --shapes bench/gpu/emit/shapes.txt --emit triton --topk 1 > bench/gpu/emit/top1.py
#   tileplan tile --shapes bench/gpu/emit/shapes.txt --topk 3 > bench/gpu/emit/picks.jsonl
# (the device has no build of tileplan). Three compile classes (bf16 with
# M = 1000 and M = 16, fp16 aligned), compiled by the autotuner as it goes.
set -u
export PYTHONUNBUFFERED=1
timeout 330 python3 bench/gpu/check_batch_emit.py --picks bench/gpu/emit/picks.jsonl \
  --lists top3=bench/gpu/emit/top3.py --lists top1=bench/gpu/emit/top1.py --out "$OUT/emit" \
  --deadline-s 290 > "$OUT/emit.log" 2>&1
rc=$?
cp "$OUT/emit.log" "$OUT/emit/log.txt" 2>/dev/null
tail -30 "$OUT/emit.log"
exit $rc
