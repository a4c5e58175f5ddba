#!/usr/bin/env bash
# Eighth round, run 21: the subgroup scatter without clearing its histograms (sgz; WebGPU zero-fills
# workgroup memory) beside prod; --verify.
set -u
source .devkit/setup.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu68.txt
log=$OUT/run68.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8s --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr68.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod sgz; do run $v --impl gpu --gpu-configs d8s,d8 $S; done; done
run sgz --impl gpu --gpu-configs d8s --sizes 1000003,16777216 --bits 13,32 --verify
run sgz --impl gpu --gpu-configs d8s --sizes 16777216 --bits 32 --keys equal --verify
echo done
