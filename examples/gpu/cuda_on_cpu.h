// Run simple CUDA kernels on the CPU, to check them for correctness where there is no GPU.
//
// Include this header, then the kernel's .cu file, and compile with g++ -std=c++20 -pthread.
// Every thread of a block is a std::thread (so __syncthreads() is a real barrier) and the
// blocks run one after another, which is why `__shared__` can simply mean `static`.
// Supported: threadIdx/blockIdx/blockDim/gridDim, __syncthreads, __shared__ arrays of fixed
// size, __ldg/__ldca/__ldcg, atomicAdd on int and float, float2/float4, rsqrtf, #pragma unroll.
// Not supported: warp intrinsics (__shfl_*), dynamic shared memory, textures, cooperative groups.
// Tuning parameters (macros) must not be named x, y, z or w (the members of dim3 and float4).
// A kernel that races on the GPU can race here too: run a check more than once.
#pragma once

#include <atomic>
#include <barrier>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
inline float2 make_float2(float x_, float y_) { return {x_, y_}; }
inline float4 make_float4(float x_, float y_, float z_, float w_) { return {x_, y_, z_, w_}; }
inline float rsqrtf(float v_) { return 1.0f / std::sqrt(v_); }
using std::max;
using std::min;

namespace cuda_on_cpu {
inline thread_local dim3 thread_index, block_index;
inline dim3 block_dim, grid_dim;
inline std::barrier<>* block_barrier = nullptr;

// Call kernel_(args...) with each argument read from args_[i], as cuLaunchKernel takes them.
// (Names here end in _ so that a tuning parameter defined as a macro cannot collide with them.)
template <class... A_, std::size_t... I_>
void call(void (*kernel_)(A_...), void** args_, std::index_sequence<I_...>) {
    kernel_(*static_cast<std::remove_cv_t<std::remove_reference_t<A_>>*>(args_[I_])...);
}

template <class... A_>
void launch(dim3 grid_, dim3 block_, void (*kernel_)(A_...), void** args_) {
    grid_dim = grid_;
    block_dim = block_;
    const unsigned threads_ = block_.x * block_.y * block_.z;
    for (unsigned bz_ = 0; bz_ < grid_.z; bz_++)
        for (unsigned by_ = 0; by_ < grid_.y; by_++)
            for (unsigned bx_ = 0; bx_ < grid_.x; bx_++) {
                std::barrier<> barrier_(static_cast<std::ptrdiff_t>(threads_));
                block_barrier = &barrier_;
                std::vector<std::jthread> team_;
                team_.reserve(threads_);
                for (unsigned t_ = 0; t_ < threads_; t_++) {
                    team_.emplace_back([=] {
                        thread_index = {t_ % block_.x, (t_ / block_.x) % block_.y, t_ / (block_.x * block_.y)};
                        block_index = {bx_, by_, bz_};
                        call(kernel_, args_, std::index_sequence_for<A_...>{});
                    });
                }
            }  // the team joins here, before the next block reuses the "shared" statics
}
}  // namespace cuda_on_cpu

#define threadIdx (cuda_on_cpu::thread_index)
#define blockIdx (cuda_on_cpu::block_index)
#define blockDim (cuda_on_cpu::block_dim)
#define gridDim (cuda_on_cpu::grid_dim)
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __restrict__ __restrict

inline void __syncthreads() { cuda_on_cpu::block_barrier->arrive_and_wait(); }
template <class T_> inline T_ __ldg(const T_* p_) { return *p_; }
template <class T_> inline T_ __ldca(const T_* p_) { return *p_; }
template <class T_> inline T_ __ldcg(const T_* p_) { return *p_; }
inline int atomicAdd(int* a_, int v_) { return std::atomic_ref<int>(*a_).fetch_add(v_); }
inline float atomicAdd(float* a_, float v_) { return std::atomic_ref<float>(*a_).fetch_add(v_); }
