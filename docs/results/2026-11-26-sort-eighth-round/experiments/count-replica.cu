// The count phase (shaders/radix_count.wgsl) written in CUDA, with variants, to find what holds it
// below the copy kernel's bandwidth. One pass over argv[1] random 32-bit keys (tiles of 4,096),
// checked against the host's per-tile histograms. Build:
//   nvcc -O3 -arch=native -o count count-replica.cu && ./count 16777216
#include "scatter-harness.cuh"

constexpr int COPIES = 4;
constexpr int VECS = ITEMS / 4;

struct CountShared {
  unsigned hist[2 * 8 * RADIX];  // room for the variants' histogram sets
  uint4 scan_values[WG / 4];
  uint4 scan_group_totals[(SCAN_GROUPS + 3) / 4];
};

// VARIANT 0: as the WGSL (WebGPU's zero-fill and its barrier, loads, atomics into 4 copies chosen by
//            lid % 4, barrier, add the copies, workgroup scan, one packed word and one block-sum add).
// VARIANT 1: no workgroup scan (the count alone written).
// VARIANT 2: a workgroup counts two consecutive tiles (loads of both issued first; two histogram sets).
// VARIANT 3: one histogram per warp (copy = lid / 32) instead of lid % 4.
// VARIANT 4: no atomics (loads xor-folded): what the loads and the rest cost.
// VARIANT 5: only the loads and one word written per workgroup: a read stream on this grid.
template <int VARIANT>
__global__ void __launch_bounds__(WG) count_kernel(const uint4* __restrict__ keys, unsigned* __restrict__ counts,
                                                  unsigned* __restrict__ block_sums, unsigned n, unsigned num_tiles,
                                                  unsigned shift, unsigned block_tiles) {
  __shared__ CountShared s;
  constexpr int TILES = VARIANT == 2 ? 2 : 1;
  constexpr int SETS = VARIANT == 3 ? 8 : COPIES;
  unsigned lid = threadIdx.x;
  unsigned first_tile = blockIdx.x * TILES;
  for (unsigned i = lid; i < TILES * SETS * RADIX; i += WG) s.hist[i] = 0;
  uint4 loaded[TILES][VECS];
#pragma unroll
  for (int t = 0; t < TILES; t++)
#pragma unroll
    for (int q = 0; q < VECS; q++) {
      unsigned v = (first_tile + t) * (TILE / 4) + q * WG + lid;
      loaded[t][q] = v * 4 < n ? keys[v] : make_uint4(0, 0, 0, 0);
    }
  __syncthreads();
  if (VARIANT == 5) {
    unsigned x = 0;
#pragma unroll
    for (int t = 0; t < TILES; t++)
#pragma unroll
      for (int q = 0; q < VECS; q++) x ^= loaded[t][q].x ^ loaded[t][q].y ^ loaded[t][q].z ^ loaded[t][q].w;
    if (x == 0x12345678u) counts[first_tile] = x;
    return;
  }
  unsigned copy = (VARIANT == 3 ? lid / 32 : lid % COPIES) * RADIX;
  unsigned sink = 0;
#pragma unroll
  for (int t = 0; t < TILES; t++)
#pragma unroll
    for (int q = 0; q < VECS; q++)
#pragma unroll
      for (int c = 0; c < 4; c++) {
        unsigned first = ((first_tile + t) * (TILE / 4) + q * WG + lid) * 4;
        unsigned d = (comp(loaded[t][q], c) >> shift) & 255u;
        if (first + c < n) {
          if (VARIANT == 4) sink ^= d;
          else atomicAdd(&s.hist[t * SETS * RADIX + copy + d], 1u);
        }
      }
  if (VARIANT == 4 && sink == 0x12345678u) s.hist[0] = sink;
  __syncthreads();
#pragma unroll
  for (int t = 0; t < TILES; t++) {
    unsigned tile = first_tile + t;
    if (tile >= num_tiles) break;
    unsigned own = 0;
#pragma unroll
    for (int c = 0; c < SETS; c++) own += s.hist[t * SETS * RADIX + c * RADIX + lid];
    unsigned start = 0;
    if (VARIANT != 1) start = wg_scan(s, lid, own).exclusive;
    counts[tile * RADIX + lid] = own | (start << 16);
    if (own) atomicAdd(&block_sums[(tile / block_tiles) * RADIX + lid], own);
  }
}

template <int VARIANT>
void run(const char* name, unsigned n, unsigned* dk, unsigned* dc, unsigned* db, const std::vector<unsigned>& want) {
  unsigned num_tiles = (n + TILE - 1) / TILE;
  unsigned block_tiles = std::max(8u, (num_tiles + 63) / 64);
  unsigned grid = VARIANT == 2 ? (num_tiles + 1) / 2 : num_tiles;
  auto launch = [&] {
    count_kernel<VARIANT><<<grid, WG>>>((const uint4*)dk, dc, db, n, num_tiles, 0, block_tiles);
  };
  CHECK(cudaMemset(dc, 0, (size_t)num_tiles * RADIX * 4));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got((size_t)num_tiles * RADIX);
  CHECK(cudaMemcpy(got.data(), dc, got.size() * 4, cudaMemcpyDeviceToHost));
  bool exact = true;
  if (VARIANT < 4)
    for (size_t i = 0; i < got.size() && exact; i++) exact = (got[i] & 0xffffu) == want[i];
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, count_kernel<VARIANT>));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  auto batch = [&] {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < 50; i++) launch();
    CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
    float ms; CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms / 50;
  };
  float prev = batch();
  for (int i = 0; i < 40; i++) { float cur = batch(); if (fabsf(cur - prev) < 0.01f * prev) break; prev = cur; }
  std::vector<float> t;
  for (int i = 0; i < 5; i++) t.push_back(batch());
  std::sort(t.begin(), t.end());
  printf("{\"impl\":\"cuda-count\",\"variant\":\"%s\",\"registers\":%d,\"n\":%u,\"ms\":%.4f,\"gbps\":%.0f,\"exact\":%s}\n", name,
         attr.numRegs, n, t[2], n * 4.0 / t[2] / 1e6, VARIANT < 4 ? (exact ? "true" : "false") : "null");
}

int main(int argc, char** argv) {
  unsigned n = argc > 1 ? atoi(argv[1]) : 16777216u;
  unsigned num_tiles = (n + TILE - 1) / TILE;
  std::vector<unsigned> keys(n), want((size_t)num_tiles * RADIX, 0);
  uint64_t x = 88172645463325252ull;
  for (unsigned i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    keys[i] = (unsigned)x;
    want[(size_t)(i / TILE) * RADIX + (keys[i] & 255u)]++;
  }
  unsigned *dk, *dc, *db, *dout;
  size_t padded_n = ((size_t)n + 3) / 4 * 4;
  CHECK(cudaMalloc(&dk, padded_n * 4)); CHECK(cudaMalloc(&dout, padded_n * 4));
  CHECK(cudaMalloc(&dc, (size_t)num_tiles * RADIX * 4)); CHECK(cudaMalloc(&db, 64 * RADIX * 4 * 64));
  CHECK(cudaMemcpy(dk, keys.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  run<0>("wgsl", n, dk, dc, db, want);
  run<1>("no-scan", n, dk, dc, db, want);
  run<2>("two-tiles", n, dk, dc, db, want);
  run<3>("warp-histograms", n, dk, dc, db, want);
  run<4>("no-atomics", n, dk, dc, db, want);
  run<5>("loads-only", n, dk, dc, db, want);
  // The copy kernel over the keys (read 4 B, write 4 B a key), for the bandwidth reference.
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; i++) copy_kernel<<<1056, 512>>>((const uint4*)dk, (uint4*)dout, padded_n / 4);
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < 50; i++) copy_kernel<<<1056, 512>>>((const uint4*)dk, (uint4*)dout, padded_n / 4);
  CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
  float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); ms /= 50;
  printf("{\"impl\":\"cuda-copy\",\"n\":%u,\"ms\":%.4f,\"gbps\":%.0f}\n", n, ms, n * 8.0 / ms / 1e6);
  return 0;
}
