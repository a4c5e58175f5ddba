#!/usr/bin/env bash
# Eighth round, run 3: keys and values staged as one vec2 per pair (v2) beside head; ncu on the CUDA
# replica of the portable scatter, if the machine has it.
set -u
source .devkit/setup.sh >/dev/null 2>&1
log=$OUT/run50.txt
node bench-exp/head/bench-sort.mjs --impl gpu --gpu-configs d8 --sizes 16777216 --bits 32 > /dev/null 2>&1   # warm the machine
run() { local name=$1; shift; node bench-exp/$name/bench-sort.mjs "$@" 2>>$OUT/stderr50.txt | sed "s/^/$name /" >> $log; }
S="--sizes 1048576,4194304,16777216 --bits 16,32"
for i in 1 2; do for v in head v2; do run $v --impl gpu --gpu-configs d8,d8i12 $S; done; done
for v in head v2; do run $v --impl gpu --gpu-configs d8 $S --phases; done
run v2 --impl gpu --gpu-configs d8,d8i12 --sizes 1000003,4000037,16777216 --bits 13,32 --verify
# ncu
export PATH=$PATH:/usr/local/cuda/bin
(which ncu nvcc; ls /usr/local/cuda*/bin 2>&1 | head -50; ls /opt/nvidia 2>&1) > $OUT/ncu-where.txt 2>&1
cd exp/cu && nvcc -O3 -arch=native -DITEMS=16 -DMINB=2 -lineinfo -o /tmp/scatter scatter-nibble-ranking.cu > $OUT/nvcc.txt 2>&1
/tmp/scatter 16777216 >> $OUT/nvcc.txt 2>&1
NCU=$(which ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 200 $NCU --set full -k regex:scatter -c 1 /tmp/scatter 16777216 > $OUT/ncu.txt 2>&1
  timeout 100 $NCU --section WarpStateStats --section SourceCounters -k regex:scatter -c 1 --print-details all /tmp/scatter 16777216 > $OUT/ncu-stalls.txt 2>&1
fi
echo done
