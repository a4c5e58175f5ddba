#!/usr/bin/env bash
# Seventh round, run 13: block sums cleared by the scatter after the scan has read them (nz)
# instead of a clearBuffer before each sort (final).
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run46.txt
node bench-exp/final/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr46.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2 3; do for v in final nz; do run $v --impl gpu --gpu-configs d8 $S; done; done
run nz --impl gpu --gpu-configs d8,d8s --sizes 1000003,16777216 --bits 13,32 --verify
echo done
