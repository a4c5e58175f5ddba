// What the two CUDA scatters share: the shape of the tile, the workgroup
// scan, and a harness that sorts one radix pass and times it. ITEMS (pairs
// per invocation) and MINB (the __launch_bounds__ minimum of workgroups per
// multiprocessor) come from the command line.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef ITEMS
#define ITEMS 16
#endif
#ifndef MINB
#define MINB 2
#endif
#define WG 256
#define TILE (WG * ITEMS)
#define RADIX 256
#define DIGIT_BITS 8
constexpr int SCAN_GROUPS = WG / 16;

__device__ __forceinline__ unsigned comp(uint4 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

struct ScanResult {
  unsigned exclusive, total;
};

// Exclusive scan of one value per invocation, as workgroup_exclusive_scan in
// shaders/radix_common.wgsl: groups of 16, four values a read. `s` holds
// scan_values[WG / 4] and scan_group_totals[(SCAN_GROUPS + 3) / 4].
template <class S>
__device__ __forceinline__ ScanResult wg_scan(S& s, unsigned lid, unsigned value) {
  reinterpret_cast<unsigned*>(s.scan_values)[lid] = value;
  __syncthreads();
  unsigned group = lid / 16, in_group = lid % 16, below = 0, group_total = 0;
#pragma unroll
  for (int q = 0; q < 4; q++) {
    uint4 v = s.scan_values[4 * group + q];
#pragma unroll
    for (int c = 0; c < 4; c++) {
      unsigned x = comp(v, c);
      below += (4u * q + c < in_group) ? x : 0u;
      group_total += x;
    }
  }
  if (in_group == 0) reinterpret_cast<unsigned*>(s.scan_group_totals)[group] = group_total;
  __syncthreads();
  unsigned total = 0;
#pragma unroll
  for (int q = 0; q < (SCAN_GROUPS + 3) / 4; q++) {
    uint4 v = s.scan_group_totals[q];
#pragma unroll
    for (int c = 0; c < 4; c++) {
      unsigned other = 4u * q + c;
      if (other < SCAN_GROUPS) {
        below += other < group ? comp(v, c) : 0u;
        total += comp(v, c);
      }
    }
  }
  return {below, total};
}

// A plain copy kernel for the bandwidth reference.
__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// Sorts one radix pass (the lowest 8 bits) of argv[1] random 32-bit keys
// with their indices as values through `kernel`, checks the result against
// a stable partition on the host, times it and prints one JSON line that
// starts with `label`. Returns the process's exit status.
template <class Kernel>
int run_pass(Kernel kernel, const char* label, int argc, char** argv) {
  unsigned n = argc > 1 ? atoi(argv[1]) : 16777216u;
  unsigned shift = 0;
  unsigned num_tiles = (n + TILE - 1) / TILE;
  std::vector<unsigned> keys(n), values(n), counts((size_t)RADIX * num_tiles);
  uint64_t x = 88172645463325252ull;
  for (unsigned i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    keys[i] = (unsigned)x;
    values[i] = i;
  }
  // Digit bases: output place of a digit's run in the tile, less its start in the ranked tile.
  std::vector<unsigned> totals(RADIX, 0), tile_hist((size_t)num_tiles * RADIX, 0);
  for (unsigned i = 0; i < n; i++) {
    unsigned d = (keys[i] >> shift) & 255u;
    totals[d]++;
    tile_hist[(size_t)(i / TILE) * RADIX + d]++;
  }
  std::vector<unsigned> running(RADIX);
  unsigned acc = 0;
  for (int d = 0; d < RADIX; d++) { running[d] = acc; acc += totals[d]; }
  for (unsigned t = 0; t < num_tiles; t++) {
    unsigned start_in_tile = 0;
    for (int d = 0; d < RADIX; d++) {
      counts[(size_t)d * num_tiles + t] = running[d] - start_in_tile;
      running[d] += tile_hist[(size_t)t * RADIX + d];
      start_in_tile += tile_hist[(size_t)t * RADIX + d];
    }
  }
  size_t padded_n = ((size_t)n + 3) / 4 * 4;
  unsigned *dk, *dv, *ok, *ov, *dc;
  CHECK(cudaMalloc(&dk, padded_n * 4)); CHECK(cudaMalloc(&dv, padded_n * 4));
  CHECK(cudaMalloc(&ok, padded_n * 4)); CHECK(cudaMalloc(&ov, padded_n * 4));
  CHECK(cudaMalloc(&dc, counts.size() * 4));
  CHECK(cudaMemcpy(dk, keys.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, values.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, counts.data(), counts.size() * 4, cudaMemcpyHostToDevice));
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  int blocks_per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, WG, 0));
  auto launch = [&] { kernel<<<num_tiles, WG>>>((const uint4*)dk, (const uint4*)dv, ok, ov, dc, n, num_tiles, shift); };
  launch();
  CHECK(cudaDeviceSynchronize());
  // Check: a stable partition by the digit.
  std::vector<unsigned> got_k(n), got_v(n);
  CHECK(cudaMemcpy(got_k.data(), ok, (size_t)n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_v.data(), ov, (size_t)n * 4, cudaMemcpyDeviceToHost));
  std::vector<unsigned> idx(n);
  for (unsigned i = 0; i < n; i++) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](unsigned a, unsigned b) { return ((keys[a] >> shift) & 255u) < ((keys[b] >> shift) & 255u); });
  bool ok_all = true;
  for (unsigned i = 0; i < n && ok_all; i++) ok_all = got_k[i] == keys[idx[i]] && got_v[i] == values[idx[i]];
  // Time: warm up until two successive batches of 50 agree within 1 %, then the median of 5 batches.
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  auto batch = [&] {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < 50; i++) launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms; CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms / 50;
  };
  float prev = batch();
  for (int i = 0; i < 40; i++) { float cur = batch(); if (fabsf(cur - prev) < 0.01f * prev) break; prev = cur; }
  std::vector<float> t;
  for (int i = 0; i < 5; i++) t.push_back(batch());
  std::sort(t.begin(), t.end());
  // Copy bandwidth, same buffers (keys and values in, out).
  auto copy = [&] { copy_kernel<<<1056, 512>>>((const uint4*)dk, (uint4*)ok, padded_n / 4); copy_kernel<<<1056, 512>>>((const uint4*)dv, (uint4*)ov, padded_n / 4); };
  for (int i = 0; i < 20; i++) copy();
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < 50; i++) copy();
  CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
  float cms; CHECK(cudaEventElapsedTime(&cms, a, b)); cms /= 50;
  printf("{%s,\"items\":%d,\"minBlocks\":%d,\"registers\":%d,\"localBytes\":%zu,\"blocksPerSM\":%d,\"n\":%u,\"ms\":%.4f,\"min\":%.4f,\"max\":%.4f,\"copyPairsMs\":%.4f,\"exact\":%s}\n",
         label, ITEMS, MINB, attr.numRegs, attr.localSizeBytes, blocks_per_sm, n, t[2], t[0], t[4], cms, ok_all ? "true" : "false");
  return ok_all ? 0 : 1;
}
