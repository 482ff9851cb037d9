/* lcg_chain, CUDA: one thread per stream (all the parallelism the chains have), in one block; each
 * thread runs its chain of dependent 64-bit multiply-adds in registers, exactly as the C side.
 * Latency-bound by design: sm_90 has no 64-bit integer multiplier, so every step is a chain of
 * 32-bit multiply-adds, and the rare mixing branch diverges within the warp. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL

__global__ void lcg_chain(int streams, long steps, const int *__restrict__ seeds, int *__restrict__ out) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= streams) return;
    uint64_t state = (uint64_t)(uint32_t)seeds[2 * s] << 32 | (uint32_t)seeds[2 * s + 1];
    uint64_t fold = 0;
    int low = 0;
    for (long t = 0; t < steps; t++) {
        state = state * LCG_A + LCG_C;
        if ((state >> 60) == 0) state ^= state >> 17;
        low += (state >> 62) == 0;
        fold ^= state >> 33;
    }
    out[3 * s] = low;
    out[3 * s + 1] = (int)fold;
    out[3 * s + 2] = (int)(state >> 33);
}

int main(int argc, char **argv) {
    int streams = (int)xapp_arg(argc, argv, 1, 16);
    long steps = xapp_arg(argc, argv, 2, 1L << 22);
    int *seeds = (int *)xapp_alloc((size_t)2 * streams * sizeof(int)), *out = (int *)xapp_alloc((size_t)3 * streams * sizeof(int));
    xapp_seed(602);
    xapp_fill_int(seeds, 2 * (size_t)streams, 0, 2147483647);
    int *dseeds, *dout;
    XAPP_CUDA(cudaMalloc(&dseeds, (size_t)2 * streams * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dout, (size_t)3 * streams * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(dseeds, seeds, (size_t)2 * streams * sizeof(int), cudaMemcpyHostToDevice));
    int threads = streams < 256 ? streams : 256;
    int blocks = (streams + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, lcg_chain<<<blocks, threads>>>(streams, steps, dseeds, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, (size_t)3 * streams * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, 3 * (size_t)streams));
    cudaFree(dseeds); cudaFree(dout); free(seeds); free(out);
    return 0;
}
