/* pathfinder, CUDA: one launch per row (each row needs the whole previous one), one thread per column;
 * a block stages its slice of the previous row plus one cell on each side in shared memory and reads
 * the row's costs coalesced. The launches are short: launch overhead matters. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void row_step(long cols, const int *__restrict__ w, const int *__restrict__ src, int *__restrict__ dst) {
    __shared__ int s[THREADS + 2];
    long j = (long)blockIdx.x * THREADS + threadIdx.x;
    int tx = threadIdx.x;
    if (j < cols) s[tx + 1] = src[j];
    if (tx == 0 && j > 0) s[0] = src[j - 1];
    if (tx == THREADS - 1 && j + 1 < cols) s[THREADS + 1] = src[j + 1];
    __syncthreads();
    if (j >= cols) return;
    int m = s[tx + 1];
    if (j > 0) m = min(m, s[tx]);
    if (j < cols - 1) m = min(m, s[tx + 2]);
    dst[j] = w[j] + m;
}

int main(int argc, char **argv) {
    long cols = xapp_arg(argc, argv, 1, 65536), rows = xapp_arg(argc, argv, 2, 1000);
    if (cols < 2 || rows < 2) { fprintf(stderr, "pathfinder: needs at least 2 rows and 2 columns\n"); return 2; }
    size_t wbytes = (size_t)rows * cols * sizeof(int);
    int *wall = (int *)xapp_alloc(wbytes), *out = (int *)xapp_alloc(cols * sizeof(int));
    xapp_seed(408);
    xapp_fill_int(wall, (size_t)rows * cols, 0, 10);
    int *dwall, *da, *db;
    XAPP_CUDA(cudaMalloc(&dwall, wbytes));
    XAPP_CUDA(cudaMalloc(&da, cols * sizeof(int))); XAPP_CUDA(cudaMalloc(&db, cols * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(dwall, wall, wbytes, cudaMemcpyHostToDevice));
    long blocks = (cols + THREADS - 1) / THREADS;
    const int *last = dwall;
    XAPP_TIME_KERNEL(best, {
        const int *src = dwall;
        int *dst = da;
        for (long t = 1; t < rows; t++) {
            row_step<<<blocks, THREADS>>>(cols, dwall + t * cols, src, dst);
            src = dst;
            dst = dst == da ? db : da;
        }
        last = src;
    });
    XAPP_CUDA(cudaMemcpy(out, last, cols * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, cols));
    cudaFree(dwall); cudaFree(da); cudaFree(db); free(wall); free(out);
    return 0;
}
