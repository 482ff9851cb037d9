/* graph_degree_hist, CUDA: a grid-stride pass (coalesced row-pointer reads) into a per-block
 * histogram in shared memory (shared atomics), then one global atomicAdd per nonzero bin and block. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256
#define MAX_BLOCKS 1024

#define BINS 256  /* degrees 0..254, and one bin for 255 and above */

/* Deterministic CSR row pointers of a graph with a heavy-tailed degree distribution (shared by copy
 * with the other side): vertex v draws a scale g, geometric (P(g = k) = 2^-(k+1), at most 12), and a
 * degree uniform in [0, 2^(g+1)); only the row pointers are built, as the histogram needs no more. */
static int *make_rowptr(long n) {
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    long total = 0;
    rowptr[0] = 0;
    for (long v = 0; v < n; v++) {
        uint64_t r = xapp_next();
        int g = 0;
        while (g < 12 && ((r >> g) & 1) == 0) g++;
        total += (long)(xapp_next() % ((uint64_t)2 << g));
        if (total > 2147483647L) {
            fprintf(stderr, "xapp: the edge count must fit in an int (n=%ld is too large)\n", n);
            exit(2);
        }
        rowptr[v + 1] = (int)total;
    }
    return rowptr;
}
__global__ void graph_degree_hist(long n, const int *__restrict__ rowptr, int *hist) {
    __shared__ int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += THREADS) local[b] = 0;
    __syncthreads();
    for (long v = (long)blockIdx.x * THREADS + threadIdx.x; v < n; v += (long)gridDim.x * THREADS) {
        int d = rowptr[v + 1] - rowptr[v];
        atomicAdd(&local[d < BINS - 1 ? d : BINS - 1], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += THREADS)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 3L << 24);
    xapp_seed(115);
    int *rowptr = make_rowptr(n);
    int hist[BINS];
    int *drowptr, *dhist;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dhist, BINS * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    long wanted = (n + THREADS - 1) / THREADS;
    int blocks = (int)(wanted < MAX_BLOCKS ? wanted : MAX_BLOCKS);
    XAPP_TIME_KERNEL(best, XAPP_CUDA(cudaMemset(dhist, 0, BINS * sizeof(int)));
                           graph_degree_hist<<<blocks, THREADS>>>(n, drowptr, dhist));
    XAPP_CUDA(cudaMemcpy(hist, dhist, BINS * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(hist, BINS));
    cudaFree(drowptr); cudaFree(dhist);
    free(rowptr);
    return 0;
}
