#!/usr/bin/env bash
# Eighth round, run 2: count workgroups that loop over tiles (G workgroups; pf: next tile's keys loaded
# before this tile's atomics), beside head; count and scan emptied (timing only).
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run49.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr49.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in head lp1024 pf1024 pf2048 pf528 cempty sempty; do run $v --impl gpu --gpu-configs d8 $S; done; done
for v in head pf1024 pf2048; do run $v --impl gpu --gpu-configs d8 $S --phases; done
run pf1024 --impl gpu --gpu-configs d8,d4 --sizes 1000003,4000037,16777216 --bits 13,32 --verify
echo done
