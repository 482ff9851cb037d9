/* bfs_step, CUDA: one thread per vertex (bottom-up BFS step); the level reads of consecutive
 * vertices are coalesced, the in-neighbour scans are random gathers with early exit. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

/* Deterministic random graph in CSR form (shared by copy with the .c side): vertex v has a number
 * of in-neighbours uniform in [0, 2*avg_deg], each uniform over [0, n). */
static void make_csr(long n, int avg_deg, int **rowptr_out, int **col_out) {
    if ((double)n * (2.0 * avg_deg + 1.0) > 2147483647.0) {
        fprintf(stderr, "xapp: n * (2*avg_deg+1) must fit in an int (got n=%ld, avg_deg=%d)\n", n, avg_deg);
        exit(2);
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    rowptr[0] = 0;
    for (long i = 0; i < n; i++) rowptr[i + 1] = rowptr[i] + (int)(xapp_next() % (uint64_t)(2 * avg_deg + 1));
    int *col = (int *)xapp_alloc((size_t)rowptr[n] * sizeof(int));
    for (long e = 0; e < rowptr[n]; e++) col[e] = (int)(xapp_next() % (uint64_t)n);
    *rowptr_out = rowptr;
    *col_out = col;
}

/* The same step on the host, for the untimed set-up. */
static void host_bfs_step(long n, const int *rowptr, const int *col, const int *level, int cur, int *next) {
    for (long v = 0; v < n; v++) {
        int lv = level[v];
        if (lv < 0) {
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
                if (level[col[e]] == cur) {
                    lv = cur + 1;
                    break;
                }
            }
        }
        next[v] = lv;
    }
}

/* Untimed set-up (same as the C side): BFS from vertex 0 until the frontier holds at least n/16
 * vertices (or stops growing); returns that frontier's level. */
static int bfs_prepare(long n, const int *rowptr, const int *col, int *level, int *tmp) {
    for (long v = 0; v < n; v++) level[v] = -1;
    level[0] = 0;
    int cur = 0;
    long frontier = 1;
    while (frontier < n / 16) {
        host_bfs_step(n, rowptr, col, level, cur, tmp);
        long grown = 0;
        for (long v = 0; v < n; v++) grown += tmp[v] == cur + 1;
        if (grown == 0) break;
        memcpy(level, tmp, (size_t)n * sizeof(int));
        cur++;
        frontier = grown;
    }
    return cur;
}

__global__ void bfs_step(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                         const int *__restrict__ level, int cur, int *__restrict__ next) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int lv = level[v];
    if (lv < 0) {
        int end = rowptr[v + 1];
        for (int e = rowptr[v]; e < end; e++) {
            if (__ldg(&level[col[e]]) == cur) {
                lv = cur + 1;
                break;
            }
        }
    }
    next[v] = lv;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(12);
    make_csr(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int)), *next = (int *)xapp_alloc((size_t)n * sizeof(int));
    int cur = bfs_prepare(n, rowptr, col, level, next);
    int *drowptr, *dcol, *dlevel, *dnext;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dlevel, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dnext, n * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dlevel, level, n * sizeof(int), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, bfs_step<<<blocks, threads>>>(n, drowptr, dcol, dlevel, cur, dnext));
    XAPP_CUDA(cudaMemcpy(next, dnext, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(next, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dlevel); cudaFree(dnext);
    free(rowptr); free(col); free(level); free(next);
    return 0;
}
