#!/usr/bin/env bash
# Seventh round, run 4: tile-major counts with block sums (tm) beside head; CUB before and after.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu37.txt
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu &
log=$OUT/run37.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
wait
/tmp/cub 1048576 4194304 16777216 > $OUT/cub37.txt 2>&1
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr37.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do
  run head --impl gpu --gpu-configs d8 $S
  run tm --impl gpu --gpu-configs d8 $S
done
run head --impl gpu,copy --gpu-configs d8 $S --phases
run tm --impl gpu --gpu-configs d8,d8s $S --phases
/tmp/cub 1048576 4194304 16777216 >> $OUT/cub37.txt 2>&1
run tm --impl gpu --gpu-configs d8,d8s,d8i12 --sizes 1000003,16777216 --bits 13,32 --verify
echo done
