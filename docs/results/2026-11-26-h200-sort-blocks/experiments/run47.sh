#!/usr/bin/env bash
# Seventh round, run 14: the scan without the barrier that the workgroup scan already provides
# (mend) beside b0a791b (final); --verify.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run47.txt
node bench-exp/final/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr47.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2 3; do for v in final mend; do run $v --impl gpu --gpu-configs d8 $S; done; done
run mend --impl gpu --gpu-configs d8,d8s,d4 --sizes 1000003,4000037,16777216 --bits 13,32 --verify
echo done
