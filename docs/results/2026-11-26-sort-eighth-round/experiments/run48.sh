#!/usr/bin/env bash
# Eighth round, run 1: workgroups of 128 (and 64) invocations beside the default 256.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run48.txt
B=bench-dist/bench-sort.mjs
node $B --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
nvidia-smi --query-gpu=name,driver_version --format=csv >> $log
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do node $B --impl gpu --gpu-configs d8,d8w128,d8i12w128,d8w64 $S >> $log 2>>$OUT/stderr48.txt; done
node $B --impl gpu --gpu-configs d8,d8w128 $S --phases >> $log 2>>$OUT/stderr48.txt
node $B --impl gpu --gpu-configs d8w128,d8i12w128 --sizes 1000003,4000037,16777216 --bits 13,32 --verify >> $log 2>>$OUT/stderr48.txt
echo done
