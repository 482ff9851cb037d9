/* cuda_runtime.h stand-in: runs a corpus CUDA program on the CPU, for checking without a GPU.
 *
 * Not a simulator of performance: it executes every launch block by block, one std::thread per
 * CUDA thread, with real barriers for __syncthreads() and per-warp exchanges for the
 * __shfl_down_sync() reductions, so index arithmetic, bounds checks, tiling and reduction logic
 * run as written and the checksum can be compared with the C side. Timings it reports are
 * meaningless (every "kernel" takes 1 ms).
 *
 * Use (see tests/xapp/test_corpus.py): rewrite `kernel<<<grid, block>>>(args)` as
 * `xemu_launch(grid, block, kernel, args)` and compile with
 *   g++ -std=c++20 -O1 -pthread -x c++ -I corpus/harness/emulator prog.cu
 * Limits: one block at a time (enough for block-local __shared__ data, which becomes static);
 * whole warps must call __shfl_down_sync together with a full mask; no streams,
 * dynamic shared memory or cooperative groups; atomics are real std::atomic_ref operations. */
#ifndef XAPP_CUDA_EMULATOR_H
#define XAPP_CUDA_EMULATOR_H

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct xemu_uint3 { unsigned x, y, z; };

inline thread_local xemu_uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __constant__
#define __launch_bounds__(...)

/* Vector types, as plain structs. */
struct float2 { float x, y; };
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }

/* Per-block synchronisation state, rebuilt for every block. */
struct xemu_block {
    std::barrier<> block_barrier;
    std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
    std::vector<unsigned long long> lanes;  /* exchange slots, one per thread */
    explicit xemu_block(unsigned threads) : block_barrier((std::ptrdiff_t)threads), lanes(threads) {
        for (unsigned w = 0; w < (threads + 31) / 32; w++) {
            unsigned size = threads - w * 32 < 32 ? threads - w * 32 : 32;
            warp_barriers.emplace_back(std::make_unique<std::barrier<>>((std::ptrdiff_t)size));
        }
    }
};
inline thread_local xemu_block *xemu_current = nullptr;

inline unsigned xemu_linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

inline void __syncthreads() { xemu_current->block_barrier.arrive_and_wait(); }

template <typename T>
inline T __shfl_down_sync(unsigned, T v, int delta, int width = 32) {
    static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a large type");
    unsigned tid = xemu_linear_tid(), lane = tid % 32, warp = tid / 32;
    std::barrier<> &bar = *xemu_current->warp_barriers[warp];
    unsigned warp_size = (unsigned)(xemu_current->lanes.size() - warp * 32);
    if (warp_size > 32) warp_size = 32;
    unsigned long long slot = 0;
    std::memcpy(&slot, &v, sizeof(T));
    xemu_current->lanes[tid] = slot;
    bar.arrive_and_wait();
    T out = v;  /* lanes past the warp's end keep their own value, as on the GPU */
    unsigned segment = (unsigned)width, in_segment = lane % segment;  /* width: a power of two up to 32 */
    if (in_segment + (unsigned)delta < segment && lane + (unsigned)delta < warp_size) std::memcpy(&out, &xemu_current->lanes[tid + delta], sizeof(T));
    bar.arrive_and_wait();
    return out;
}

template <typename T> inline T __ldg(const T *p) { return *p; }

/* Atomics on host memory (shared or global alike); each returns the old value. */
template <typename T> inline T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <typename T> inline T atomicSub(T *p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }
template <typename T> inline T atomicExch(T *p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
template <typename T> inline T atomicCAS(T *p, T expected, T desired) {
    std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired);
    return expected;
}
template <typename T> inline T atomicMin(T *p, T v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {}
    return old;
}
template <typename T> inline T atomicMax(T *p, T v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v > old && !a.compare_exchange_weak(old, v)) {}
    return old;
}

/* Device math the host library lacks (rounding may differ from the GPU's approximations). */
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __fdividef(float a, float b) { return a / b; }
/* Round-to-nearest intrinsics: the host (no -mfma, no fast-math) does not contract either. */
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
using std::max;
using std::min;

template <typename K, typename... A>
void xemu_launch(dim3 grid, dim3 block, K kernel, A... args) {
    unsigned threads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                xemu_block state(threads);
                std::vector<std::thread> pool;
                pool.reserve(threads);
                for (unsigned t = 0; t < threads; t++)
                    pool.emplace_back([&, t] {
                        xemu_current = &state;
                        blockDim = block; gridDim = grid;
                        blockIdx = {bx, by, bz};
                        threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        kernel(args...);
                    });
                for (auto &th : pool) th.join();
            }
}

/* The runtime API the corpus uses, on host memory. */
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
typedef int cudaEvent_t;
inline const char *cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t bytes) {
    *p = (T *)std::malloc(bytes ? bytes : 1);
    return *p ? cudaSuccess : 2;
}
inline cudaError_t cudaFree(void *p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { std::memmove(d, s, n); return cudaSuccess; }
typedef int cudaStream_t;
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t = 0) {
    std::memmove(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) { std::memset(d, v, n); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t = 0) { std::memset(d, v, n); return cudaSuccess; }
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount, cudaDevAttrMaxThreadsPerBlock, cudaDevAttrWarpSize };
/* Answers as an H100/H200-class GPU would (132 SMs), so launch shapes stay realistic. */
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int) {
    *value = attr == cudaDevAttrMultiProcessorCount ? 132 : attr == cudaDevAttrMaxThreadsPerBlock ? 1024 : 32;
    return cudaSuccess;
}
template <typename T> inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *s, size_t n) {
    std::memcpy((void *)&symbol, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = 0; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, int = 0) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 1.0f; return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }

#endif
