#!/usr/bin/env bash
# Eighth round, run 13 (H100): the scatter touching the tile LOOKAHEAD tiles ahead (tN) beside prod.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run60.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr60.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod t256 t512 t1024; do run $v --impl gpu --gpu-configs d8 $S; done; done
echo done
