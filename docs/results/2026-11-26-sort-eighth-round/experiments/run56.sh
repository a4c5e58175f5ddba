#!/usr/bin/env bash
# Eighth round, run 9 (H100): the benchmark command twice with CUB; the commit before (prev) beside
# this one (prod), no timestamps, two alternations; --verify.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
node bench-dist/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
C="node bench-dist/bench-sort.mjs --impl gpu,copy --gpu-configs d8,d8s --sizes 1048576,4194304,16777216 --bits 16,32 --phases --compare"
$C "/tmp/cub 1048576 4194304 16777216" > $OUT/sort.txt 2> $OUT/warnings.txt
$C "/tmp/cub 1048576 4194304 16777216" > $OUT/sort-repeat.txt 2>> $OUT/warnings.txt
log=$OUT/run56.txt
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr56.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prev prod; do run $v --impl gpu --gpu-configs d8 $S; done; done
run prod --impl gpu --gpu-configs d8,d8s --sizes 1000003,16777216 --bits 13,32 --verify
for k in equal sorted; do run prod --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 --keys $k --verify; done
echo done
