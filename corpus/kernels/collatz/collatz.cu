/* collatz, CUDA: one thread per start value (coalesced stores); the warp runs until its longest
 * sequence ends, so divergence in trip count and in the odd/even branch costs. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void collatz(long n, long first, int *__restrict__ steps) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = (unsigned long long)(first + i);
    int s = 0;
    while (x > 1) {
        if (x & 1) x = 3 * x + 1;
        else x >>= 1;
        s++;
    }
    steps[i] = s;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    long first = xapp_arg(argc, argv, 2, 1L << 20);
    int *steps = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *dsteps;
    XAPP_CUDA(cudaMalloc(&dsteps, n * sizeof(int)));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, collatz<<<blocks, threads>>>(n, first, dsteps));
    XAPP_CUDA(cudaMemcpy(steps, dsteps, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(steps, n));
    cudaFree(dsteps); free(steps);
    return 0;
}
