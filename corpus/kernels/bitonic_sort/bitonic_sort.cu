/* bitonic_sort, CUDA: the keys are copied from the input (device to device, timed, as the C side
 * copies), then one launch per (stage k, step j) of the network with one thread per pair:
 * thread t takes i = 2t - (t mod j) and its partner i + j, so a warp reads two runs of
 * consecutive keys (coalesced once j >= 32), and sorts the pair ascending where bit k of i is 0. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void compare_exchange(long n, long k, long j, int *__restrict__ a) {
    long t = (long)blockIdx.x * THREADS + threadIdx.x;
    if (t >= n / 2) return;
    long i = 2 * t - (t & (j - 1));
    int x = a[i], y = a[i + j];
    int lo = x < y ? x : y, hi = x < y ? y : x;
    bool up = (i & k) == 0;
    a[i] = up ? lo : hi;
    a[i + j] = up ? hi : lo;
}

int main(int argc, char **argv) {
    int logn = (int)xapp_arg(argc, argv, 1, 20);
    if (logn > 30) { fprintf(stderr, "bitonic_sort: at most 2^30 keys\n"); return 2; }
    long n = 1L << logn;
    size_t bytes = n * sizeof(int);
    int *in = (int *)xapp_alloc(bytes), *a = (int *)xapp_alloc(bytes);
    xapp_seed(513);
    xapp_fill_int(in, n, 0, 100000000);
    int *din, *da;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&da, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    long blocks = (n / 2 + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, {
        XAPP_CUDA(cudaMemcpyAsync(da, din, bytes, cudaMemcpyDeviceToDevice));
        for (long k = 2; k <= n; k <<= 1)
            for (long j = k >> 1; j > 0; j >>= 1)
                compare_exchange<<<blocks, THREADS>>>(n, k, j, da);
    });
    XAPP_CUDA(cudaMemcpy(a, da, bytes, cudaMemcpyDeviceToHost));
    for (long i = 1; i < n; i++)
        if (a[i - 1] > a[i]) { fprintf(stderr, "bitonic_sort: not sorted at %ld\n", i); return 1; }
    xapp_report(best, xapp_checksum_int(a, n));
    cudaFree(din); cudaFree(da); free(in); free(a);
    return 0;
}
