#!/usr/bin/env bash
# Eighth round, run 20 (H100): the values loaded through a late address after the first nibble's
# ranking (lvm) or after the whole ranking (lvo), beside prod; registers.
set -u
source .devkit/setup.sh >/dev/null 2>&1
for f in exp/debs/*.deb; do dpkg -x "$f" /; done
export PATH=$PWD/exp/bin:$PATH
gcc -O1 -o /tmp/ps bench/pipeline-stats/pipeline-stats.c -lvulkan 2>/dev/null
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu67.txt
log=$OUT/run67.txt
node bench-exp/prod/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr67.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in prod lvo lvm; do run $v --impl gpu --gpu-configs d8 $S; done; done
regs() { local v=$1 c=$2
  DAWN_ENABLE_FEATURES=dump_shaders,disable_symbol_renaming node bench-exp/$v/bench-sort.mjs --impl gpu --gpu-configs $c --sizes 65536 --bits 32 --runs 3 --warmup-batch 2 --warmup-max-s 3 > /tmp/dump-$v.txt 2>&1
  rm -rf /tmp/spv-$v; python3 bench/pipeline-stats/extract-spirv.py /tmp/dump-$v.txt /tmp/spv-$v > /dev/null
  for f in /tmp/spv-$v/*scatter.spv; do echo "$v $c $(basename $f) $(/tmp/ps $f dawn_entry_point 2>&1 | grep -E 'Register|Shared' | tr '\n' ' ')"; done >> $OUT/regs67.txt
}
regs lvm d8
echo done
