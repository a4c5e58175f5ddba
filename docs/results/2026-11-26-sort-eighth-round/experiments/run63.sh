#!/usr/bin/env bash
# Eighth round, run 16 (H100): do the two workgroups of a multiprocessor load in step? Tiles 132..263
# (the second slot's first workgroups on a 132-multiprocessor GPU) start DELAY dependent steps late
# (skN), beside prod. A diagnostic: the delay itself costs time.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run63.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr63.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod sk1000 sk3000 sk8000; do run $v --impl gpu --gpu-configs d8 $S; done; done
echo done
