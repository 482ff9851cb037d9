/* pointer_chase, CUDA: one thread per walker in a single block; each step is a dependent,
 * uncoalesced global load, so the GPU's memory latency (higher than the CPU's) is exposed. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

/* Deterministic random single cycle through all n nodes (Sattolo's algorithm), shared by copy
 * with the .c side. */
static void make_cycle(long n, int *next) {
    for (long i = 0; i < n; i++) next[i] = (int)i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)(xapp_next() % (uint64_t)i);
        int t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

__global__ void pointer_chase(int nwalk, long steps, const int *__restrict__ next, const int *__restrict__ val,
                              const int *__restrict__ start, int *__restrict__ out) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwalk) return;
    int p = start[w];
    unsigned sum = 0;
    for (long s = 0; s < steps; s++) {
        p = next[p];
        sum += (unsigned)val[p];
    }
    out[2 * w] = (int)(sum & 0x7fffffffu);
    out[2 * w + 1] = p;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 24);
    long steps = xapp_arg(argc, argv, 2, 1L << 18);
    int nwalk = (int)xapp_arg(argc, argv, 3, 4);
    int *next = (int *)xapp_alloc((size_t)n * sizeof(int)), *val = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *start = (int *)xapp_alloc((size_t)nwalk * sizeof(int)), *out = (int *)xapp_alloc((size_t)2 * nwalk * sizeof(int));
    xapp_seed(28);
    make_cycle(n, next);
    xapp_fill_int(val, n, 0, 1000);
    xapp_fill_int(start, nwalk, 0, (int)n);
    int *dnext, *dval, *dstart, *dout;
    XAPP_CUDA(cudaMalloc(&dnext, n * sizeof(int))); XAPP_CUDA(cudaMalloc(&dval, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dstart, nwalk * sizeof(int))); XAPP_CUDA(cudaMalloc(&dout, 2 * nwalk * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(dnext, next, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dval, val, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dstart, start, nwalk * sizeof(int), cudaMemcpyHostToDevice));
    int threads = nwalk < 256 ? nwalk : 256;
    int blocks = (nwalk + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, pointer_chase<<<blocks, threads>>>(nwalk, steps, dnext, dval, dstart, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, 2 * nwalk * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, 2 * (size_t)nwalk));
    cudaFree(dnext); cudaFree(dval); cudaFree(dstart); cudaFree(dout);
    free(next); free(val); free(start); free(out);
    return 0;
}
