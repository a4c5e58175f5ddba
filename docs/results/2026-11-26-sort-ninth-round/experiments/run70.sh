#!/usr/bin/env bash
# Ninth round, run 70 (H100): tile counts that fill whole waves of 264 workgroups (two per
# multiprocessor on 132: 3960 and 4224 tiles of 4096 pairs) beside 16M (4096 tiles, 15.5 waves),
# ours and CUB at the same sizes, twice. One output file.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu
for i in 1 2; do
node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16220160,16777216,17301504 --bits 16,32 \
  --compare "/tmp/cub 16220160 16777216 17301504" 2>&1
done > $OUT/run70.txt
echo done
