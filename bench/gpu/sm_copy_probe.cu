// sm_copy_probe: how fast one SM can stream operands into shared memory with
// cp.async, as a function of the blocks running (one per SM), the bytes of a
// stage and the stages in flight, from the L2 and from DRAM.
//
// The Triton tutorial GEMM's main loop, without its MMAs: each of P blocks of
// 128 threads (or 256; one block per SM, or two on every SM) streams its own
// contiguous slice of a buffer into shared memory in stages of STAGE bytes
// (16-byte cp.async.cg per thread and chunk: L2 only), S buffers, S - 1
// stages in flight, a barrier before and after reading a stage back. After a
// stage's wait every thread adds the 32-bit words it copied to a checksum, so
// every byte lands and is read back; each block adds its checksum into a
// zeroed output, and the 4th and 18th launches' outputs are compared with the
// host's sums of the same random words (a block that did not run, or a byte
// not copied, fails the check).
//
// Modes:
//   dram  every block reads 3 MiB once; the L2 is flushed (a 512 MiB memset)
//         before every timed launch, so the bytes come from DRAM;
//   l2    every block reads a 96 KiB slice 32 times (slices together at most
//         12.4 MiB, warm in the 60 MiB L2): the bytes come from the L2.
//
// Timing: CUDA events around each launch, 15 timed launches after 3 warm-up
// ones, median. First, the DRAM ceiling: a device-to-device copy. Output:
// one JSON line per (mode, SMs, blocks per SM, threads, stage, stages) on
// stdout, a table on stderr. --wide measures 128 and 256 threads, one and
// two blocks per SM, on fewer sizes.
//
//   nvcc -O3 -arch=sm_90 -o sm_copy_probe bench/gpu/sm_copy_probe.cu
//   ./sm_copy_probe [--quick | --wide] > probe.jsonl
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

constexpr int kMaxThreads = 256;
constexpr int kChunk = 16;  // bytes per cp.async

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Block b streams bytes [b * slice, (b + 1) * slice) of src, `passes` times,
// in stages of `stage` bytes (slice a multiple of stage); S buffers, S - 1
// stages in flight. Offsets advance by addition (no 64-bit division in the
// loop: it would cost more than the copies it times).
template <int S>
__global__ void __launch_bounds__(kMaxThreads) stream_kernel(const uint4* __restrict__ src, int slice, int passes,
                                                           int stage, unsigned long long* sums) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int steps = slice / stage * passes;
  const int chunks = stage / kChunk;  // per stage
  const unsigned char* base = reinterpret_cast<const unsigned char*>(src) + static_cast<int64_t>(blockIdx.x) * slice;
  int issued = 0, issue_off = 0, issue_buf = 0;
  auto issue = [&]() {
    if (issued < steps) {
      const unsigned char* g = base + issue_off;
      unsigned char* s = smem + issue_buf * stage;
      for (int c = threadIdx.x; c < chunks; c += blockDim.x) cp_async16(s + c * kChunk, g + c * kChunk);
      issue_off += stage;
      if (issue_off == slice) issue_off = 0;
      issue_buf = issue_buf + 1 == S ? 0 : issue_buf + 1;
    }
    ++issued;
    cp_async_commit();  // an empty group past the end keeps the count
  };
  for (int i = 0; i < S - 1; ++i) issue();
  unsigned long long sum = 0;
  int buf = 0;
  for (int step = 0; step < steps; ++step) {
    cp_async_wait<S - 2>();
    __syncthreads();
    const unsigned char* s = smem + buf * stage;
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
      const uint4 v = *reinterpret_cast<const uint4*>(s + c * kChunk);
      sum += static_cast<unsigned long long>(v.x) + v.y + v.z + v.w;
    }
    buf = buf + 1 == S ? 0 : buf + 1;
    __syncthreads();  // every thread is done with the buffer the next issue refills
    issue();
  }
  cp_async_wait<0>();
  atomicAdd(&sums[blockIdx.x], sum);
}

using Launch = void (*)(dim3, int, size_t, const uint4*, int, int, int, unsigned long long*);
template <int S>
void launch(dim3 grid, int threads, size_t smem, const uint4* src, int slice, int passes, int stage,
            unsigned long long* sums) {
  stream_kernel<S><<<grid, threads, smem>>>(src, slice, passes, stage, sums);
}
Launch launcher(int s) {
  switch (s) {
    case 2: return launch<2>;
    case 3: return launch<3>;
    case 4: return launch<4>;
    case 5: return launch<5>;
  }
  return nullptr;
}

int main(int argc, char** argv) {
  // --quick: a few configurations; --wide: 128 and 256 threads, one and two blocks per SM, on fewer sizes.
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const bool wide = argc > 1 && std::strcmp(argv[1], "--wide") == 0;
  if (argc > 2 || (argc == 2 && !quick && !wide)) {
    std::fprintf(stderr, "sm_copy_probe: '%s' is not an option: give none, --quick or --wide\n", argv[argc - 1]);
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  // One block per SM: every block asks for more than half the SM's shared
  // memory; two: each asks for less than half, more than a third.
  const size_t smem_one = std::min<size_t>(prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor / 2 + 4096);
  const size_t smem_two = prop.sharedMemPerMultiprocessor / 2 - 2048;
  for (int s = 2; s <= 5; ++s) {
    const void* f = s == 2 ? (const void*)stream_kernel<2> : s == 3 ? (const void*)stream_kernel<3>
                  : s == 4 ? (const void*)stream_kernel<4> : (const void*)stream_kernel<5>;
    CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_one)));
  }
  std::fprintf(stderr, "# %s, %d SMs, SM clock %d MHz (attribute), %zu B shared per block at one block per SM, %zu at two\n",
               prop.name, sms, clock_khz / 1000, smem_one, smem_two);

  // Slices are multiples of every stage size (8, 16, 32 and 48 KiB).
  const int dram_slice = 3 << 20, l2_slice = 96 << 10;
  const int l2_passes = 32;
  const int max_blocks = 2 * sms;
  const size_t pool_bytes = static_cast<size_t>(max_blocks) * dram_slice;
  std::vector<uint32_t> host(pool_bytes / 4);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& w : host) {  // random words (xorshift64*)
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    w = static_cast<uint32_t>((x * 0x2545f4914f6cdd1dull) >> 32);
  }
  uint4* src = nullptr;
  unsigned char* flush = nullptr;
  unsigned long long* sums = nullptr;
  const size_t flush_bytes = 512u << 20;
  CHECK(cudaMalloc(&src, pool_bytes));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMalloc(&sums, max_blocks * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(src, host.data(), pool_bytes, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  // The DRAM ceiling: a device-to-device copy of the pool into the flush
  // buffer's first half (read plus written bytes over the time), median of 9.
  {
    const size_t n = std::min(pool_bytes, flush_bytes / 2);
    std::vector<float> t;
    for (int rep = 0; rep < 12; ++rep) {
      CHECK(cudaEventRecord(e0));
      CHECK(cudaMemcpyAsync(flush, src, n, cudaMemcpyDeviceToDevice));
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep >= 3) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    const double gbps = 2.0 * static_cast<double>(n) / (t[t.size() / 2] * 1e-3) * 1e-9;
    std::printf("{\"mode\": \"d2d_copy\", \"bytes\": %zu, \"ms\": %.4f, \"gbps_read_plus_written\": %.1f}\n", n,
                t[t.size() / 2], gbps);
    std::fprintf(stderr, "# device-to-device copy of %zu B: %.1f GB/s read plus written\n", n, gbps);
  }

  const std::vector<int> blocks = quick ? std::vector<int>{16, sms}
                                  : wide ? std::vector<int>{1, 33, 66, sms}
                                         : std::vector<int>{1, 8, 16, 33, 66, 99, sms};
  const std::vector<int> stages_bytes = quick || wide ? std::vector<int>{16384, 32768}
                                                      : std::vector<int>{8192, 16384, 32768, 49152};
  const std::vector<int> stage_counts = quick ? std::vector<int>{3} : wide ? std::vector<int>{3, 4}
                                                                           : std::vector<int>{2, 3, 4, 5};
  const std::vector<int> thread_counts = wide ? std::vector<int>{128, 256} : std::vector<int>{128};
  const std::vector<int> per_sm_counts = wide ? std::vector<int>{1, 2} : std::vector<int>{1};
  int failures = 0;
  std::fprintf(stderr, "%-5s %4s %3s %3s %6s %2s %9s %12s %10s %11s %s\n", "mode", "SMs", "bps", "thr", "stage", "S", "us",
               "GB/s per SM", "B/clk/SM", "total GB/s", "check");
  for (const char* mode : {"dram", "l2"}) {
    const bool dram = std::strcmp(mode, "dram") == 0;
    const int slice = dram ? dram_slice : l2_slice;
    const int passes = dram ? 1 : l2_passes;
    for (int bps : per_sm_counts)
      for (int threads : thread_counts)
        for (int p : blocks)
          for (int st : stages_bytes)
            for (int s : stage_counts) {
              const size_t smem_block = bps == 1 ? smem_one : smem_two;
              if (static_cast<size_t>(s) * st > smem_block) continue;
              // The block scheduler spreads blocks over idle SMs first: two per SM only when all are busy.
              if (bps == 2 && p != sms) continue;
              const int nb = p * bps;  // blocks: bps on each of p SMs
              // Expected checksums (every word of each slice, `passes` times).
              std::vector<unsigned long long> want(nb, 0);
              for (int b = 0; b < nb; ++b) {
                unsigned long long t = 0;
                const uint32_t* w = host.data() + static_cast<int64_t>(b) * slice / 4;
                for (int64_t i = 0; i < slice / 4; ++i) t += w[i];
                want[b] = t * static_cast<unsigned long long>(passes);
              }
              const Launch run = launcher(s);
              std::vector<float> times;
              bool ok = true;
              for (int rep = 0; rep < 18; ++rep) {
                if (dram) CHECK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
                CHECK(cudaMemsetAsync(sums, 0, nb * sizeof(unsigned long long)));
                CHECK(cudaEventRecord(e0));
                run(dim3(nb), threads, smem_block, src, slice, passes, st, sums);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (rep >= 3) times.push_back(ms);
                if (rep == 3 || rep == 17) {
                  std::vector<unsigned long long> got(nb);
                  CHECK(cudaMemcpy(got.data(), sums, nb * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
                  for (int b = 0; b < nb; ++b) ok = ok && got[b] == want[b];
                }
              }
              std::sort(times.begin(), times.end());
              const double us = times[times.size() / 2] * 1e3;
              // Per SM: the bps blocks of one SM together.
              const double per_sm = static_cast<double>(slice) * passes * bps / us * 1e-3;  // GB/s
              const double bpc = per_sm * 1e3 / (clock_khz / 1000.0);                      // bytes per SM clock
              failures += !ok;
              std::printf(
                  "{\"mode\": \"%s\", \"blocks\": %d, \"blocks_per_sm\": %d, \"threads\": %d, \"stage_bytes\": %d, "
                  "\"stages\": %d, \"bytes_per_block\": %lld, \"us\": %.3f, \"us_min\": %.3f, \"us_max\": %.3f, "
                  "\"gbps_per_sm\": %.2f, \"bytes_per_clock_per_sm\": %.2f, \"gbps_total\": %.1f, \"check\": %s}\n",
                  mode, p, bps, threads, st, s, static_cast<long long>(slice) * passes, us, times.front() * 1e3,
                  times.back() * 1e3, per_sm, bpc, per_sm * p, ok ? "true" : "false");
              std::fprintf(stderr, "%-5s %4d %3d %3d %6d %2d %9.2f %12.1f %10.2f %11.0f %s\n", mode, p, bps, threads, st, s,
                           us, per_sm, bpc, per_sm * p, ok ? "ok" : "WRONG");
            }
  }
  std::fprintf(stderr, "# %d configuration(s) with a wrong checksum\n", failures);
  return failures ? 3 : 0;
}
