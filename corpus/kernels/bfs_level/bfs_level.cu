/* bfs_level, CUDA: one launch per BFS level, one thread per frontier vertex; a neighbour is
 * claimed with atomicCAS on its level and appended to the next frontier with atomicAdd on the
 * queue's tail. The host reads the tail back after every level (4 bytes) to size the next launch
 * and to stop; that read is part of the algorithm and stays inside the timing. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

/* Deterministic road-like grid graph in CSR form (shared by copy with the .c side): vertex
 * y*w + x links to its right and lower neighbours each with probability 4/5 (symmetric edges);
 * neighbour lists are in the order up, left, right, down. */
static void make_grid(long w, long h, int **rowptr_out, int **col_out) {
    long n = w * h;
    if ((double)n * 4.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 4*w*h must fit in an int (got w=%ld, h=%ld)\n", w, h);
        exit(2);
    }
    unsigned char *right = (unsigned char *)xapp_alloc((size_t)n), *down = (unsigned char *)xapp_alloc((size_t)n);
    for (long v = 0; v < n; v++) {
        long x = v % w, y = v / w;
        right[v] = x + 1 < w && xapp_next() % 5 != 0;
        down[v] = y + 1 < h && xapp_next() % 5 != 0;
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    int *col = (int *)xapp_alloc((size_t)n * 4 * sizeof(int));
    int e = 0;
    for (long v = 0; v < n; v++) {
        rowptr[v] = e;
        long x = v % w;
        if (v >= w && down[v - w]) col[e++] = (int)(v - w);
        if (x > 0 && right[v - 1]) col[e++] = (int)(v - 1);
        if (right[v]) col[e++] = (int)(v + 1);
        if (down[v]) col[e++] = (int)(v + w);
    }
    rowptr[n] = e;
    free(right); free(down);
    *rowptr_out = rowptr;
    *col_out = col;
}

__global__ void bfs_init(int src, int *level, int *queue, int *tail) {
    level[src] = 0;
    queue[0] = src;
    *tail = 1;
}

__global__ void bfs_expand(int lo, int hi, int depth, const int *__restrict__ rowptr, const int *__restrict__ col,
                           int *level, int *queue, int *tail) {
    int i = lo + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= hi) return;
    int u = queue[i];
    int end = rowptr[u + 1];
    for (int e = rowptr[u]; e < end; e++) {
        int v = col[e];
        if (level[v] < 0 && atomicCAS(&level[v], -1, depth + 1) == -1) {
            int pos = atomicAdd(tail, 1);
            queue[pos] = v;
        }
    }
}

/* The whole search; returns the number of levels expanded. */
static int bfs(long n, const int *rowptr, const int *col, int src, int *level, int *queue, int *tail) {
    XAPP_CUDA(cudaMemset(level, 0xff, (size_t)n * sizeof(int)));  /* every level -1 */
    bfs_init<<<1, 1>>>(src, level, queue, tail);
    int lo = 0, hi = 1, depth = 0;
    while (lo < hi) {
        int blocks = (hi - lo + THREADS - 1) / THREADS;
        bfs_expand<<<blocks, THREADS>>>(lo, hi, depth, rowptr, col, level, queue, tail);
        int next = 0;
        XAPP_CUDA(cudaMemcpy(&next, tail, sizeof(int), cudaMemcpyDeviceToHost));
        lo = hi;
        hi = next;
        depth++;
    }
    return depth;
}

int main(int argc, char **argv) {
    long w = xapp_arg(argc, argv, 1, 1536), h = xapp_arg(argc, argv, 2, 1536);
    long n = w * h;
    int *rowptr, *col;
    xapp_seed(101);
    make_grid(w, h, &rowptr, &col);
    long nnz = rowptr[n];
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *drowptr, *dcol, *dlevel, *dqueue, *dtail;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dlevel, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dqueue, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dtail, sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    int levels = 0;
    XAPP_TIME_KERNEL(best, levels = bfs(n, drowptr, dcol, 0, dlevel, dqueue, dtail));
    (void)levels;
    XAPP_CUDA(cudaMemcpy(level, dlevel, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(level, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dlevel); cudaFree(dqueue); cudaFree(dtail);
    free(rowptr); free(col); free(level);
    return 0;
}
