#!/usr/bin/env bash
# Seventh round, run 12: scan blocks (final: at most 64 of at least 8 tiles; sb128, sb32: at most
# 128 or 32; mb4: at least 4 tiles).
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run45.txt
node bench-exp/final/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr45.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in final sb128 sb32 mb4; do run $v --impl gpu --gpu-configs d8 $S; done; done
run sb128 --impl gpu --gpu-configs d8 --sizes 1000003,16777216 --bits 32 --verify
run mb4 --impl gpu --gpu-configs d8 --sizes 1000003,16777216 --bits 32 --verify
echo done
