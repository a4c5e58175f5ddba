#!/usr/bin/env bash
# Seventh round, run 6: the official command on the final build (bench-dist), then it beside head
# without timestamps, then --verify.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu39.txt
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu
node bench-dist/bench-sort.mjs --impl gpu,copy --gpu-configs d8,d8s --sizes 1048576,4194304,16777216 --bits 16,32 --phases --compare "/tmp/cub 1048576 4194304 16777216" > $OUT/sort.txt 2>&1
log=$OUT/run39.txt
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr39.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in head tmf; do run $v --impl gpu --gpu-configs d8 $S; done; done
/tmp/cub 1048576 4194304 16777216 > $OUT/cub39.txt 2>&1
run tmf --impl gpu --gpu-configs d8,d8s,d8i12,d4 --sizes 1000003,16777216 --bits 13,32 --verify
echo done
