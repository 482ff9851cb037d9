/* montecarlo_pi, CUDA: one thread per stream (its LCG chain stays in registers), counts written
 * per thread, then a warp-shuffle and shared-memory sum per block and one 64-bit atomicAdd per
 * block into the total (reset before the launch). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 128
#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL
#define R2 (1ULL << 62)

__global__ void montecarlo_pi(int streams, int points, const int *__restrict__ seeds, int *__restrict__ hits,
                              unsigned long long *__restrict__ total) {
    __shared__ unsigned long long warp_sums[THREADS / 32];
    int t = blockIdx.x * THREADS + threadIdx.x;
    unsigned long long count = 0;
    if (t < streams) {
        unsigned long long s = (unsigned long long)seeds[t];
        int c = 0;
        for (int p = 0; p < points; p++) {
            s = s * LCG_A + LCG_C;
            unsigned long long x = s >> 33;
            s = s * LCG_A + LCG_C;
            unsigned long long y = s >> 33;
            c += x * x + y * y < R2;
        }
        hits[t] = c;
        count = (unsigned long long)c;
    }
    for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = count;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block = 0;
        for (int w = 0; w < THREADS / 32; w++) block += warp_sums[w];
        atomicAdd(total, block);
    }
}

int main(int argc, char **argv) {
    int streams = (int)xapp_arg(argc, argv, 1, 1024), points = (int)xapp_arg(argc, argv, 2, 65536);
    int *seeds = (int *)xapp_alloc(streams * sizeof(int)), *hits = (int *)xapp_alloc(streams * sizeof(int));
    xapp_seed(503);
    xapp_fill_int(seeds, streams, 0, 2147483647);
    int *dseeds, *dhits;
    unsigned long long *dtotal;
    XAPP_CUDA(cudaMalloc(&dseeds, streams * sizeof(int))); XAPP_CUDA(cudaMalloc(&dhits, streams * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dtotal, sizeof(unsigned long long)));
    XAPP_CUDA(cudaMemcpy(dseeds, seeds, streams * sizeof(int), cudaMemcpyHostToDevice));
    int blocks = (streams + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, XAPP_CUDA(cudaMemsetAsync(dtotal, 0, sizeof(unsigned long long)));
                           montecarlo_pi<<<blocks, THREADS>>>(streams, points, dseeds, dhits, dtotal));
    unsigned long long total = 0;
    XAPP_CUDA(cudaMemcpy(hits, dhits, streams * sizeof(int), cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(&total, dtotal, sizeof(total), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(hits, streams) + (double)total);
    cudaFree(dseeds); cudaFree(dhits); cudaFree(dtotal); free(seeds); free(hits);
    return 0;
}
