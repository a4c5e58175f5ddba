#!/usr/bin/env bash
# Seventh round, run 1: the subgroup ranking with peers found by a workgroup-memory
# atomicOr (sgor: its own words; sgor2: in the staging area) beside head.
set -u
source .devkit/setup.sh >/dev/null 2>&1
for f in exp/debs/*.deb; do dpkg -x "$f" / 2>/dev/null; done
export PATH=$PWD/exp/bin:$PATH
gcc -O1 -o /tmp/ps bench/pipeline-stats/pipeline-stats.c -lvulkan 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
log=$OUT/run34.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 16,32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,16777216 --bits 16,32 --phases"
run head --impl gpu,copy --gpu-configs d8,d8s,d8si24,d8si16 $S
run sgor --impl gpu --gpu-configs d8si24,d8si16 $S
run sgor2 --impl gpu --gpu-configs d8s,d8si24,d8si16 $S
run head --impl gpu --gpu-configs d8,d8s $S
run sgor --impl gpu --gpu-configs d8si24 --sizes 1000003,16777216 --bits 13,32 --verify
run sgor2 --impl gpu --gpu-configs d8s,d8si16 --sizes 1000003,16777216 --bits 13,32 --verify
for b in head:d8 head:d8s sgor:d8si24 sgor:d8si16 sgor2:d8s sgor2:d8si16; do v=${b%%:*}; c=${b#*:}
  DAWN_ENABLE_FEATURES=dump_shaders,disable_symbol_renaming node bench-exp/$v/bench-sort.mjs --impl gpu --gpu-configs $c --sizes 65536 --bits 32 --runs 3 --warmup-batch 2 --warmup-max-s 3 > /tmp/dump.txt 2>&1
  rm -rf /tmp/spv; python3 bench/pipeline-stats/extract-spirv.py /tmp/dump.txt /tmp/spv > /dev/null
  for f in /tmp/spv/*scatter*.spv /tmp/spv/*.spv; do echo "$v $c $(basename $f) $(/tmp/ps $f dawn_entry_point 2>&1 | grep -E 'Register|Shared' | tr '\n' ' ')"; done | sort -u >> $OUT/regs.txt
done
echo done
