#!/usr/bin/env bash
# Seventh round, run 7: where the new scan's time goes (scatter empty: e_x; and scan empty,
# count empty, both, scan without block sums, scan without its walk), and a scan of four
# digits per invocation (v4) beside the committed build (tmf).
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvcc -O3 -arch=native -o /tmp/cub .devkit/cub_sort.cu &
log=$OUT/run40.txt
node bench-exp/tmf/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
wait
/tmp/cub 1048576 4194304 16777216 > $OUT/cub40.txt 2>&1
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr40.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do
  for v in tmf v4 e_x e_xs e_xc e_all e_xsum e_xwalk e_xv4; do run $v --impl gpu --gpu-configs d8 $S; done
done
run tmf --impl gpu --gpu-configs d8 $S --phases
run v4 --impl gpu --gpu-configs d8 $S --phases
/tmp/cub 1048576 4194304 16777216 >> $OUT/cub40.txt 2>&1
run v4 --impl gpu --gpu-configs d8 --sizes 1000003,4000037,16777216 --bits 13,32 --verify
echo done
