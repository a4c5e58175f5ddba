#!/usr/bin/env bash
# Seventh round, run 5: scan batches and block counts (tm2: 64 blocks, sums 32 / tiles 16 a batch;
# tm4: 32 blocks, 32/32; tm5: 128 blocks, 32/16; tm6: 64 blocks, 32/32) beside head; CUB before and after.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu &
log=$OUT/run38.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
wait
/tmp/cub 1048576 4194304 16777216 > $OUT/cub38.txt 2>&1
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr38.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do
  for v in head tm2 tm4 tm5 tm6; do run $v --impl gpu --gpu-configs d8 $S; done
done
for v in head tm2 tm4 tm5 tm6; do run $v --impl gpu --gpu-configs d8 $S --phases; done
/tmp/cub 1048576 4194304 16777216 >> $OUT/cub38.txt 2>&1
for v in tm2 tm4 tm5 tm6; do run $v --impl gpu --gpu-configs d8 --sizes 1000003,16777216 --bits 13,32 --verify; done
echo done
