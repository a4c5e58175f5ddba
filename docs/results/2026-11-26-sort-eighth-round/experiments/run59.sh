#!/usr/bin/env bash
# Eighth round, run 12 (H100): SM clock and power while the sort and CUB run (nvidia-smi samples).
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE > $OUT/smi-q.txt 2>&1
node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
sample() { nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms 50 > $OUT/smi-$1.txt & echo $!; }
p=$(sample sort); node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 --runs 400 > $OUT/sort59.txt 2>&1; kill $p
p=$(sample cub); for i in 1 2 3 4 5 6 7 8; do /tmp/cub 16777216 >> $OUT/cub59.txt; done; kill $p
p=$(sample copy); node bench-dist/bench-sort.mjs --impl copy --runs 400 > $OUT/copy59.txt 2>&1; kill $p
echo done
