#!/usr/bin/env bash
# Seventh round, run 3: unprofiled cost of each non-scatter phase: the scatter empty (es),
# and also the count (es_c), the scan (es_s) or the histogram step (es_h) empty.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run36.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr36.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do
  run head --impl gpu --gpu-configs d8 $S
  for v in es es_c es_s es_h ea; do run $v --impl gpu --gpu-configs d8 $S; done
done
echo done
