#!/usr/bin/env bash
# Ninth round, run 69 (H100, cold machine): the benchmark command twice at HEAD (466a3b3), the first
# invocation on a freshly started machine; then where the time goes without timestamps (each phase's
# shader returning at once: ec count, en scan, es scatter, ea all three) beside prod; then tile
# counts that fill whole waves of 264 workgroups (3960 and 4224 tiles of 4096 pairs) beside 16M,
# with CUB at the same sizes; then --verify.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader > $OUT/gpu69.txt
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu
B="node bench-dist/bench-sort.mjs --impl gpu,copy --gpu-configs d8,d8s --sizes 1048576,4194304,16777216 --bits 16,32 --phases"
$B --compare "/tmp/cub 1048576 4194304 16777216" > $OUT/sort.txt 2> $OUT/sort-stderr.txt
$B --compare "/tmp/cub 1048576 4194304 16777216" > $OUT/sort-repeat.txt 2> $OUT/sort-repeat-stderr.txt
log=$OUT/run69.txt
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr69.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,16777216 --bits 16,32"
for i in 1 2; do for v in prod ec en es ea; do run $v --impl gpu --gpu-configs d8 $S; done; done
node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16220160,16777216,17301504 --bits 16,32 \
  --compare "/tmp/cub 16220160 16777216 17301504" > $OUT/waves.txt 2> $OUT/waves-stderr.txt
node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8,d8s --sizes 1000003,16777216 --bits 13,32 --verify > $OUT/verify.txt 2>&1
echo done
