#!/usr/bin/env bash
# Eighth round, run 19 (H100): scatter workgroups taking 2 or 4 consecutive tiles, the next tile's
# keys loaded while this tile's values are written (ncN), or loaded at each tile's start (nl2:
# the loop alone), beside prod and sk3000.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run66.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr66.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod sk3000 nc2 nl2 nc4; do run $v --impl gpu --gpu-configs d8 $S; done; done
echo done
