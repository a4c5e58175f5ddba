#!/usr/bin/env bash
# Eighth round, run 14 (H100): the count phase's CUDA replica and its variants; ncu of the replica.
set -u
source .devkit/setup.sh >/dev/null 2>&1
export PATH=$PATH:/usr/local/cuda/bin
cd exp/cu && nvcc -O3 -arch=native -lineinfo -o /tmp/count count-replica.cu > $OUT/count61.txt 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader >> $OUT/count61.txt
for i in 1 2; do /tmp/count 16777216 >> $OUT/count61.txt 2>&1; done
/tmp/count 1048576 >> $OUT/count61.txt 2>&1
timeout 200 ncu --set full -k regex:"count_kernel" -c 1 /tmp/count 16777216 > $OUT/ncu61.txt 2>&1
echo done
