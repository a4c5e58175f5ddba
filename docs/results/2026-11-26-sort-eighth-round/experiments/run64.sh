#!/usr/bin/env bash
# Eighth round, run 17 (H100): the first RAMP tiles start tile * DELAY / RAMP dependent steps late
# (rpRAMPxDELAY), spreading the first wave's loads over time, beside sk3000 (run 63) and prod.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run64.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr64.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod sk3000 rp264x3000 rp264x6000 rp528x6000; do run $v --impl gpu --gpu-configs d8 $S; done; done
echo done
