#!/usr/bin/env bash
# Seventh round, run 2: the sort without timestamps, with its scatter dispatches
# empty (es) and with every dispatch empty but prepare (ea), beside head; CUB before and after.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu35.txt
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu &
log=$OUT/run35.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
wait
/tmp/cub 1048576 4194304 16777216 > $OUT/cub35.txt 2>&1
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr35.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do
  run head --impl gpu,copy --gpu-configs d8 $S
  run es --impl gpu --gpu-configs d8 $S
  run ea --impl gpu --gpu-configs d8 $S
done
run head --impl gpu --gpu-configs d8 $S --phases
/tmp/cub 1048576 4194304 16777216 >> $OUT/cub35.txt 2>&1
echo done
