// The subgroup scatter (shaders/radix_scatter_subgroup.wgsl at fe2ff34)
// written in CUDA step for step. Build (scatter-harness.cuh beside it):
//   nvcc -O3 -arch=native -DITEMS=32 -DMINB=2 -DMATCH=0 -o scatter scatter-subgroup-ranking.cu
//   ./scatter 16777216
#include "scatter-harness.cuh"

// The subgroup ranking (shaders/radix_scatter_subgroup.wgsl) in CUDA: warps
// of 32 lanes, peers of a digit found with 8 ballots (MATCH=0, as in WGSL)
// or with the hardware's __match_any_sync (MATCH=1, which WGSL lacks).
#ifndef MATCH
#define MATCH 0
#endif
constexpr int SUBGROUPS = WG / 32;
struct SgShared {
  unsigned hist[SUBGROUPS * RADIX];
  unsigned staged[TILE];
  unsigned tile_first[RADIX];
  unsigned digit_base[RADIX];
  uint4 scan_values[WG / 4];
  uint4 scan_group_totals[(SCAN_GROUPS + 3) / 4];
};

__global__ void __launch_bounds__(WG, MINB)
    scatter(const uint4* __restrict__ keys_in4, const uint4* __restrict__ values_in4, unsigned* __restrict__ keys_out,
            unsigned* __restrict__ values_out, const unsigned* __restrict__ counts, unsigned n, unsigned num_tiles, unsigned shift) {
  __shared__ SgShared s;
  const unsigned* keys_in = reinterpret_cast<const unsigned*>(keys_in4);
  const unsigned* values_in = reinterpret_cast<const unsigned*>(values_in4);
  unsigned tile = blockIdx.x, lid = threadIdx.x, lane = lid & 31u, subgroup = lid >> 5;
  for (unsigned i = lid; i < SUBGROUPS * RADIX; i += WG) s.hist[i] = 0;
  __syncthreads();
  unsigned tile_start = tile * TILE, run_start = subgroup * 32u * ITEMS;
  unsigned tile_count = counts[lid * num_tiles + tile];
  unsigned keys[ITEMS], values[ITEMS], ranks[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned at = tile_start + run_start + k * 32u + lane;
    keys[k] = at < n ? keys_in[at] : ~0u;
  }
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned at = tile_start + run_start + k * 32u + lane;
    values[k] = at < n ? values_in[at] : 0u;
  }
  unsigned below = (1u << lane) - 1u;
  unsigned row = subgroup * RADIX;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned d = (keys[k] >> shift) & 255u;
#if MATCH
    unsigned peers = __match_any_sync(0xffffffffu, d);
#else
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < DIGIT_BITS; b++) {
      bool bit = (d >> b) & 1u;
      unsigned votes = __ballot_sync(0xffffffffu, bit);
      peers &= bit ? votes : ~votes;
    }
#endif
    unsigned leader = __ffs(peers) - 1;
    unsigned before = 0;
    if (lane == leader) before = atomicAdd(&s.hist[row + d], __popc(peers));
    before = __shfl_sync(0xffffffffu, before, leader);
    ranks[k] = ((before + __popc(peers & below)) << 8u) | d;
  }
  __syncthreads();
  {
    unsigned d = lid, sum = 0;
    for (int g = 0; g < SUBGROUPS; g++) {
      unsigned c = s.hist[g * RADIX + d];
      s.hist[g * RADIX + d] = sum;
      sum += c;
    }
    ScanResult scan = wg_scan(s, lid, sum);
    for (int g = 0; g < SUBGROUPS; g++) s.hist[g * RADIX + d] += scan.exclusive;
    s.digit_base[d] = tile_count;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned d = ranks[k] & 255u;
    ranks[k] = s.hist[row + d] + (ranks[k] >> 8u);
    s.staged[ranks[k]] = keys[k];
  }
  __syncthreads();
  unsigned valid = min((unsigned)TILE, n - tile_start);
  unsigned places[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned j = k * WG + lid;
    unsigned key = s.staged[j];
    places[k] = s.digit_base[(key >> shift) & 255u] + j;
    if (j < valid) keys_out[places[k]] = key;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) s.staged[ranks[k]] = values[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned j = k * WG + lid;
    if (j < valid) values_out[places[k]] = s.staged[j];
  }
}

int main(int argc, char** argv) {
  return run_pass(scatter, MATCH ? "\"impl\":\"cuda-subgroup-ranking\",\"match\":1" : "\"impl\":\"cuda-subgroup-ranking\",\"match\":0", argc, argv);
}
