// The portable scatter (shaders/radix_scatter.wgsl at fe2ff34) written in
// CUDA step for step, to measure what a register bound would give it:
// __launch_bounds__(256, MINB) caps its registers so that MINB workgroups
// fit on a multiprocessor. Build (scatter-harness.cuh beside it):
//   nvcc -O3 -arch=native -DITEMS=16 -DMINB=2 -o scatter scatter-nibble-ranking.cu
//   ./scatter 16777216
#include "scatter-harness.cuh"

constexpr unsigned TILE_BITS = TILE > 2048 ? 12 : 11;
constexpr unsigned RANK_SHIFT = 4 + TILE_BITS;
constexpr unsigned ITEM_BITS = (1u << RANK_SHIFT) - 1u;
constexpr int STAGE = TILE > 8 * WG ? TILE : 8 * WG;
constexpr int SHARED_WORDS = STAGE + (STAGE + 31) / 32;

__device__ __forceinline__ unsigned padded(unsigned i) { return i + (i >> 5); }

struct Shared {
  unsigned words[SHARED_WORDS];
  unsigned digit_base[RADIX];
  uint4 scan_values[WG / 4];
  uint4 scan_group_totals[(SCAN_GROUPS + 3) / 4];
};

__device__ __forceinline__ void rank_by_nibble(Shared& s, unsigned lid, unsigned (&items)[ITEMS]) {
  unsigned low_counts = 0, high_counts = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned d = items[k] & 15u, shift = (d & 7u) * 4u;
    bool high = d >= 8u;
    items[k] = (items[k] & ITEM_BITS) | ((((high ? high_counts : low_counts) >> shift) & 15u) << RANK_SHIFT);
    if (k + 1 < ITEMS) {
      unsigned one = 1u << shift;
      low_counts += high ? 0u : one;
      high_counts += high ? one : 0u;
    }
  }
  unsigned last = items[ITEMS - 1] & 15u;
#pragma unroll
  for (unsigned w = 0; w < 8; w++) {
    unsigned shift = w * 4u;
    unsigned word = ((low_counts >> shift) & 15u) | (((high_counts >> shift) & 15u) << 16u);
    s.words[padded(w * WG + lid)] = word + (((last & 7u) == w) ? (1u << ((last >> 3u) * 16u)) : 0u);
  }
  __syncthreads();
  unsigned own[8], sum = 0;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    unsigned c = s.words[padded(8u * lid + i)];
    own[i] = sum;
    sum += c;
  }
  ScanResult scan = wg_scan(s, lid, sum);
#pragma unroll
  for (int i = 0; i < 8; i++) s.words[padded(8u * lid + i)] = scan.exclusive + own[i];
  __syncthreads();
  unsigned low_total = (scan.total & 0xffffu) << 16u;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned d = items[k] & 15u, half = (d >> 3u) * 16u;
    unsigned start = s.words[padded((d & 7u) * WG + lid)] + low_total;
    items[k] += ((start >> half) & 0xffffu) << RANK_SHIFT;
  }
  __syncthreads();
}

__global__ void __launch_bounds__(WG, MINB)
    scatter(const uint4* __restrict__ keys_in, const uint4* __restrict__ values_in, unsigned* __restrict__ keys_out,
            unsigned* __restrict__ values_out, const unsigned* __restrict__ counts, unsigned n, unsigned num_tiles, unsigned shift) {
  __shared__ Shared s;
  unsigned tile = blockIdx.x, lid = threadIdx.x;
  unsigned tile_start = tile * TILE, valid = min((unsigned)TILE, n - tile_start);
  unsigned tile_count = counts[lid * num_tiles + tile];  // RADIX == WG
  unsigned keys[ITEMS], values[ITEMS], items[ITEMS];
  unsigned own_first = lid * ITEMS;
#pragma unroll
  for (int q = 0; q < ITEMS / 4; q++) {
    unsigned first = tile_start + own_first + 4u * q;
    uint4 k4 = make_uint4(~0u, ~0u, ~0u, ~0u), v4 = make_uint4(0, 0, 0, 0);
    if (first < n) {
      k4 = keys_in[first / 4];
      v4 = values_in[first / 4];
    }
#pragma unroll
    for (int c = 0; c < 4; c++) {
      int k = 4 * q + c;
      keys[k] = first + c < n ? comp(k4, c) : ~0u;
      items[k] = ((own_first + k) << 4u) | ((keys[k] >> shift) & 15u);
      values[k] = comp(v4, c);
    }
  }
  s.digit_base[lid] = tile_count;
#pragma unroll
  for (unsigned nibble = 0; nibble < DIGIT_BITS / 4; nibble++) {
    rank_by_nibble(s, lid, items);
    if (nibble + 1 < DIGIT_BITS / 4) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        unsigned next = (((keys[k] >> shift) & 255u) >> (4u * (nibble + 1))) & 15u;
        s.words[padded(items[k] >> RANK_SHIFT)] = (items[k] & (ITEM_BITS & ~15u)) | next;
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < ITEMS; k++) items[k] = s.words[padded(own_first + k)];
      __syncthreads();
    }
  }
  unsigned ranks[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; k++) s.words[padded((items[k] & ITEM_BITS) >> 4u)] = items[k] >> RANK_SHIFT;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) ranks[k] = s.words[padded(own_first + k)];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) s.words[padded(ranks[k])] = keys[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned j = k * WG + lid;
    unsigned key = s.words[padded(j)];
    unsigned place = s.digit_base[(key >> shift) & 255u] + j;
    if (j < valid) keys_out[place] = key;
    keys[k] = place;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) s.words[padded(ranks[k])] = values[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    unsigned j = k * WG + lid;
    if (j < valid) values_out[keys[k]] = s.words[padded(j)];
  }
}

int main(int argc, char** argv) { return run_pass(scatter, "\"impl\":\"cuda-nibble-ranking\"", argc, argv); }
