#!/usr/bin/env bash
# Eighth round, run 11 (H100): ncu memory metrics of the CUDA replica of the portable scatter.
set -u
source .devkit/setup.sh >/dev/null 2>&1
export PATH=$PATH:/usr/local/cuda/bin
cd exp/cu && nvcc -O3 -arch=native -DITEMS=16 -DMINB=2 -lineinfo -o /tmp/scatter scatter-nibble-ranking.cu > $OUT/nvcc58.txt 2>&1
/tmp/scatter 16777216 >> $OUT/nvcc58.txt
timeout 200 ncu --set full -k regex:scatter -c 1 /tmp/scatter 16777216 > $OUT/ncu58.txt 2>&1
timeout 200 ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,gpu__time_duration.sum -k regex:"scatter|copy" /tmp/scatter 16777216 > $OUT/ncu58-mem.txt 2>&1
echo done
