// Checks the loop-partition memory model on a GPU: each kernel copies a matrix
// tile by tile, one block a tile, with the thread-to-element assignment of
// TileLang's default plan (docs/loop.md):
//
//   group g = r*T + t (round r, thread t), flat = g*V, (i0, i1) = (flat / E1, flat % E1)
//   part j of the group: lanes j*W .. j*W+W-1, one W-element load (W from the model)
//   the access reads buf[i0, i1] or, transposed, buf[i1, i0]
//
// Global variants read the tile straight from the matrix; shared variants first
// stage the tile in shared memory (row pitch = the buffer's padded width) and
// read it there with the plan. Global variants write each element back to the
// same position of the output with the same access (the output equals the
// input); shared variants write the loop point (i0, i1) to row i0, column i1 of
// the output tile, coalesced, so that a transposed shared read makes the output
// the input's transpose and their time shows the bank conflicts, not the store.
//
// Modes:  loop_copy            check every element (random input, two poisons), time (median of repeats)
//         loop_copy --once     one launch per variant, for ncu
//         loop_copy --selftest host-only: every tile element is visited exactly once by the index math
// Build:  nvcc -O3 -std=c++17 -arch=sm_90a -o loop_copy loop_copy.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    cudaError_t err_ = (call);                                                                       \
    if (err_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

template <int Bytes> struct VecOf;
template <> struct VecOf<2> { using type = unsigned short; };
template <> struct VecOf<4> { using type = unsigned int; };
template <> struct VecOf<8> { using type = uint2; };
template <> struct VecOf<16> { using type = uint4; };

// Buffer coordinates (row, column) of part j of group g.
__host__ __device__ inline void part_coords(int g, int j, int V, int W, int e1, bool transposed, int& b0, int& b1) {
  const int flat = g * V;
  const int i0 = flat / e1;
  const int i1 = flat % e1 + j * W;
  b0 = transposed ? i1 : i0;
  b1 = transposed ? i0 : i1;
}

template <typename E, int V, int W, bool TR, bool SMEM>
__global__ void plan_copy(const E* __restrict__ src, E* __restrict__ dst, long ld, long dst_ld, int e0, int e1,
                          int tiles_per_row, int scols) {
  using Vec = typename VecOf<int(sizeof(E)) * W>::type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  E* s = reinterpret_cast<E*>(smem_raw);
  const int box_rows = TR ? e1 : e0;
  const int box_cols = TR ? e0 : e1;
  const long tr = static_cast<long>(blockIdx.x / tiles_per_row) * box_rows;
  const long tc = static_cast<long>(blockIdx.x % tiles_per_row) * box_cols;
  const int groups = e0 * e1 / V;
  if (SMEM) {
    for (int i = threadIdx.x; i < box_rows * box_cols; i += blockDim.x) {
      const int r = i / box_cols, c = i % box_cols;
      s[r * scols + c] = src[(tr + r) * ld + tc + c];
    }
    __syncthreads();
  }
  for (int g = threadIdx.x; g < groups; g += blockDim.x) {
#pragma unroll
    for (int j = 0; j < V / W; ++j) {
      int b0, b1;
      part_coords(g, j, V, W, e1, TR, b0, b1);
      if (SMEM) {
        // The loop point (i0, i1) of this part: the buffer coordinates, swapped back.
        const int i0 = TR ? b1 : b0, i1 = TR ? b0 : b1;
        const long dr = TR ? tc : tr, dc = TR ? tr : tc;
        *reinterpret_cast<Vec*>(&dst[(dr + i0) * dst_ld + dc + i1]) = *reinterpret_cast<const Vec*>(&s[b0 * scols + b1]);
      } else {
        *reinterpret_cast<Vec*>(&dst[(tr + b0) * ld + tc + b1]) =
            *reinterpret_cast<const Vec*>(&src[(tr + b0) * ld + tc + b1]);
      }
    }
  }
}

struct Variant {
  const char* name;
  const char* dtype;
  int elem_bytes;
  int e0, e1, threads, vector, width;
  bool transposed, shared;
  int rows, cols;     // the matrix
  int srows, scols;   // the shared buffer (shared variants)
  void (*launch)(const void*, void*, const Variant&, cudaStream_t);
};

template <typename E, int V, int W, bool TR, bool SMEM>
void launch(const void* src, void* dst, const Variant& v, cudaStream_t stream) {
  const int box_rows = TR ? v.e1 : v.e0;
  const int box_cols = TR ? v.e0 : v.e1;
  const int tiles_per_row = v.cols / box_cols;
  const int tiles = (v.rows / box_rows) * tiles_per_row;
  const size_t smem = SMEM ? static_cast<size_t>(v.srows) * v.scols * sizeof(E) : 0;
  const long dst_ld = SMEM && TR ? v.rows : v.cols;
  plan_copy<E, V, W, TR, SMEM><<<tiles, v.threads, smem, stream>>>(
      static_cast<const E*>(src), static_cast<E*>(dst), v.cols, dst_ld, v.e0, v.e1, tiles_per_row, v.scols);
}

using u16 = unsigned short;
using u32 = unsigned int;

// name, dtype, bytes, E0, E1, T, V, W, transposed, shared, rows, cols, srows, scols
const Variant kVariants[] = {
    {"g_f16_128x32_v8", "float16", 2, 128, 32, 128, 8, 8, false, false, 8192, 8192, 0, 0, launch<u16, 8, 8, false, false>},
    {"g_f16_128x32_v1", "float16", 2, 128, 32, 128, 1, 1, false, false, 8192, 8192, 0, 0, launch<u16, 1, 1, false, false>},
    {"g_f16_128x32_v8_t", "float16", 2, 128, 32, 128, 8, 1, true, false, 8192, 8192, 0, 0, launch<u16, 8, 1, true, false>},
    {"g_f16_128x32_v1_t", "float16", 2, 128, 32, 128, 1, 1, true, false, 8192, 8192, 0, 0, launch<u16, 1, 1, true, false>},
    {"g_f32_64x64_v4", "float32", 4, 64, 64, 256, 4, 4, false, false, 8192, 8192, 0, 0, launch<u32, 4, 4, false, false>},
    {"g_f32_64x64_v8", "float32", 4, 64, 64, 256, 8, 4, false, false, 8192, 8192, 0, 0, launch<u32, 8, 4, false, false>},
    {"g_f16_256x8_v2", "float16", 2, 256, 8, 128, 2, 2, false, false, 8192, 8192, 0, 0, launch<u16, 2, 2, false, false>},
    {"g_f32_100x40_v4", "float32", 4, 100, 40, 128, 4, 4, false, false, 8000, 8000, 0, 0, launch<u32, 4, 4, false, false>},
    {"g_f32_8x8_v2", "float32", 4, 8, 8, 128, 2, 2, false, false, 8192, 8192, 0, 0, launch<u32, 2, 2, false, false>},
    {"s_f32_32x32_v1_t", "float32", 4, 32, 32, 128, 1, 1, true, true, 8192, 8192, 32, 32, launch<u32, 1, 1, true, true>},
    {"s_f32_32x32_v1_t_pad", "float32", 4, 32, 32, 128, 1, 1, true, true, 8192, 8192, 32, 33, launch<u32, 1, 1, true, true>},
    {"s_f32_32x32_v1", "float32", 4, 32, 32, 128, 1, 1, false, true, 8192, 8192, 32, 32, launch<u32, 1, 1, false, true>},
    {"s_f16_64x64_v8", "float16", 2, 64, 64, 128, 8, 8, false, true, 8192, 8192, 64, 64, launch<u16, 8, 8, false, true>},
    {"s_f16_32x64_v4", "float16", 2, 32, 64, 128, 4, 4, false, true, 8192, 8192, 32, 64, launch<u16, 4, 4, false, true>},
    {"s_f32_64x8_v4_in64x32", "float32", 4, 64, 8, 128, 4, 4, false, true, 8192, 8192, 64, 32, launch<u32, 4, 4, false, true>},
};

size_t matrix_bytes(const Variant& v) { return static_cast<size_t>(v.rows) * v.cols * v.elem_bytes; }

// What the output must hold: the input, or (shared, transposed) its transpose.
bool output_ok(const Variant& v, const unsigned char* in, const unsigned char* out) {
  if (!(v.shared && v.transposed)) return std::memcmp(in, out, matrix_bytes(v)) == 0;
  const size_t eb = v.elem_bytes;
  for (size_t r = 0; r < static_cast<size_t>(v.rows); ++r)
    for (size_t c = 0; c < static_cast<size_t>(v.cols); ++c)
      if (std::memcmp(in + (r * v.cols + c) * eb, out + (c * v.rows + r) * eb, eb) != 0) return false;
  return true;
}

int selftest() {
  int failures = 0;
  for (const Variant& v : kVariants) {
    const int box_rows = v.transposed ? v.e1 : v.e0;
    const int box_cols = v.transposed ? v.e0 : v.e1;
    std::vector<int> seen(static_cast<size_t>(box_rows) * box_cols, 0);
    const int groups = v.e0 * v.e1 / v.vector;
    for (int g = 0; g < groups; ++g)
      for (int j = 0; j < v.vector / v.width; ++j) {
        int b0, b1;
        part_coords(g, j, v.vector, v.width, v.e1, v.transposed, b0, b1);
        for (int l = 0; l < v.width; ++l) {
          if (b0 < 0 || b0 >= box_rows || b1 + l < 0 || b1 + l >= box_cols) {
            ++failures;
            continue;
          }
          ++seen[static_cast<size_t>(b0) * box_cols + b1 + l];
        }
      }
    const bool once = std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; });
    const bool tiles_fit = v.rows % box_rows == 0 && v.cols % box_cols == 0 &&
                           (!v.shared || (v.srows >= box_rows && v.scols >= box_cols));
    std::printf("%-24s every element once: %s, tiles fit: %s\n", v.name, once ? "yes" : "NO", tiles_fit ? "yes" : "NO");
    failures += !once + !tiles_fit;
  }
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--selftest") return selftest();
  const bool once = mode == "--once";

  size_t max_bytes = 0;
  for (const Variant& v : kVariants) max_bytes = std::max(max_bytes, matrix_bytes(v));
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, max_bytes));
  CHECK(cudaMalloc(&dst, max_bytes));
  // Random input: never zeros, never a pattern the poisons share.
  std::vector<unsigned char> host(max_bytes), back(max_bytes);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < max_bytes; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(&host[i], &x, std::min<size_t>(8, max_bytes - i));
  }
  CHECK(cudaMemcpy(src, host.data(), max_bytes, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  if (once) {
    for (const Variant& v : kVariants) {
      v.launch(src, dst, v, stream);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(stream));
    std::printf("launched %zu variants once\n", sizeof(kVariants) / sizeof(kVariants[0]));
    return 0;
  }

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  // The ceiling: a device-to-device copy of the largest matrix.
  std::vector<float> ms;
  for (int rep = 0; rep < 23; ++rep) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaMemcpyAsync(dst, src, max_bytes, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (rep >= 3) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("memcpy_d2d %zu MiB: median %.1f us, %.0f GB/s (read + write)\n", max_bytes >> 20, ms[ms.size() / 2] * 1e3,
              2.0 * max_bytes / (ms[ms.size() / 2] * 1e-3) / 1e9);

  std::printf("%-24s %6s %10s %10s %10s %9s\n", "variant", "check", "median_us", "min_us", "max_us", "GB/s");
  int failures = 0;
  for (const Variant& v : kVariants) {
    const size_t bytes = matrix_bytes(v);
    // Check every element under two poisons: an element the kernel skipped
    // cannot match the input under both.
    bool ok = true;
    for (int poison : {0xFF, 0x00}) {
      CHECK(cudaMemset(dst, poison, bytes));
      v.launch(src, dst, v, stream);
      CHECK(cudaGetLastError());
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaMemcpy(back.data(), dst, bytes, cudaMemcpyDeviceToHost));
      ok = ok && output_ok(v, host.data(), back.data());
    }
    failures += !ok;
    ms.clear();
    for (int rep = 0; rep < 53; ++rep) {
      CHECK(cudaEventRecord(start, stream));
      v.launch(src, dst, v, stream);
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaGetLastError());
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (rep >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("%-24s %6s %10.1f %10.1f %10.1f %9.0f\n", v.name, ok ? "ok" : "FAIL", med * 1e3, ms.front() * 1e3,
                ms.back() * 1e3, 2.0 * bytes / (med * 1e-3) / 1e9);
  }
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return failures == 0 ? 0 : 1;
}
