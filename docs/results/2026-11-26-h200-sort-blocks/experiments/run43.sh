#!/usr/bin/env bash
# Seventh round, run 10: histogram copies in the count phase (8: v6, 4: v6c4, 2: v6c2) on
# low-entropy keys as well as random ones.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run43.txt
node bench-exp/v6/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr43.txt | sed "s/^/$name /" >> $log; }
for k in random equal sorted low-bits high-bits; do
  for v in v6 v6c4 v6c2; do run $v --impl gpu --gpu-configs d8 --sizes 1048576,16777216 --bits 16,32 --keys $k --phases; done
done
for v in v6 v6c4 v6c2; do run $v --impl gpu --gpu-configs d8 --sizes 1048576,4194304,16777216 --bits 16,32; done
echo done
