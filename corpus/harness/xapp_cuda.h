/* xapp_cuda.h: CUDA helpers of the corpus harness (include after xapp_harness.h). */
#ifndef XAPP_CUDA_H
#define XAPP_CUDA_H
#include <cuda_runtime.h>

#define XAPP_CUDA(call)                                                                  \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "xapp: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(4);                                                                     \
        }                                                                                \
    } while (0)

/* Time the launch statement(s) given after BEST (one or more kernel launches, a statement) with CUDA events: one warm-up,
 * then XAPP_REPEATS timed runs; the minimum in seconds goes to the double BEST.
 * Kernels must not depend on their previous run's output (or reset it inside the timed statements). */
#define XAPP_TIME_KERNEL(BEST, ...)                                                      \
    double BEST = INFINITY;                                                              \
    do {                                                                                 \
        cudaEvent_t start_, stop_;                                                       \
        XAPP_CUDA(cudaEventCreate(&start_)); XAPP_CUDA(cudaEventCreate(&stop_));         \
        __VA_ARGS__;                                                                     \
        XAPP_CUDA(cudaGetLastError()); XAPP_CUDA(cudaDeviceSynchronize());               \
        for (int r_ = 0; r_ < xapp_repeats(); r_++) {                                    \
            XAPP_CUDA(cudaEventRecord(start_));                                          \
            __VA_ARGS__;                                                                 \
            XAPP_CUDA(cudaEventRecord(stop_));                                           \
            XAPP_CUDA(cudaEventSynchronize(stop_));                                      \
            XAPP_CUDA(cudaGetLastError());                                               \
            float ms_ = 0.0f;                                                            \
            XAPP_CUDA(cudaEventElapsedTime(&ms_, start_, stop_));                        \
            if (ms_ * 1e-3 < BEST) BEST = ms_ * 1e-3;                                    \
        }                                                                                \
        cudaEventDestroy(start_); cudaEventDestroy(stop_);                               \
    } while (0)

#endif
