#!/usr/bin/env bash
# Seventh round, run 9: the four-digit scan written for any layout (v6), and with 4 histogram copies in the count (v6c4), beside tmf and v4.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu &
log=$OUT/run42.txt
node bench-exp/tmf/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
wait
/tmp/cub 1048576 4194304 16777216 > $OUT/cub42.txt 2>&1
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr42.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2 3; do
  for v in tmf v4 v6 v6c4; do run $v --impl gpu --gpu-configs d8 $S; done
done
for v in tmf v6 v6c4; do run $v --impl gpu --gpu-configs d8 $S --phases; done
/tmp/cub 1048576 4194304 16777216 >> $OUT/cub42.txt 2>&1
run v6 --impl gpu --gpu-configs d8,d8s,d4 --sizes 1000003,4000037,16777216 --bits 13,32 --verify
run v6c4 --impl gpu --gpu-configs d8 --sizes 1000003,16777216 --bits 13,32 --verify
echo done
