#!/usr/bin/env bash
# Eighth round, run 7: ncu source view of the CUDA replica of the portable scatter.
set -u
source .devkit/setup.sh >/dev/null 2>&1
export PATH=$PATH:/usr/local/cuda/bin
cd exp/cu && nvcc -O3 -arch=native -DITEMS=16 -DMINB=2 -lineinfo -o /tmp/scatter scatter-nibble-ranking.cu > $OUT/nvcc54.txt 2>&1
timeout 300 ncu --set full --import-source yes -k regex:scatter -c 1 -o /tmp/rep /tmp/scatter 16777216 >> $OUT/nvcc54.txt 2>&1
ncu --import /tmp/rep.ncu-rep --page source --csv --print-source cuda > $OUT/src-cuda.csv 2>&1
ncu --import /tmp/rep.ncu-rep --page source --csv --print-source sass > $OUT/src-sass.csv 2>&1
ls -la $OUT
echo done
