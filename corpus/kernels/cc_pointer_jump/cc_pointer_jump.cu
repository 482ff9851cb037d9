/* cc_pointer_jump, CUDA: per round, a hooking launch (one thread per vertex over its edges,
 * atomicMin on the larger parent, a "changed" flag) and a pointer-jumping launch (each thread
 * follows its parent chain to the root); the host reads the flag back after every round
 * (4 bytes, inside the timing). Labels end as each component's smallest vertex, as on the C side. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges between uniform random endpoints, stored in both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)(xapp_next() % (uint64_t)n);
        b[e] = (int)(xapp_next() % (uint64_t)n);
    }
    int *rowptr = (int *)calloc((size_t)n + 1, sizeof(int));
    int *col = (int *)xapp_alloc((size_t)(2 * m) * sizeof(int));
    for (long e = 0; e < m; e++) { rowptr[a[e] + 1]++; rowptr[b[e] + 1]++; }
    for (long v = 0; v < n; v++) rowptr[v + 1] += rowptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, rowptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) { col[fill[a[e]]++] = b[e]; col[fill[b[e]]++] = a[e]; }
    free(a); free(b); free(fill);
    *rowptr_out = rowptr;
    *col_out = col;
}
__global__ void init_parents(long n, int *parent) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) parent[v] = (int)v;
}

__global__ void hook(long n, const int *__restrict__ rowptr, const int *__restrict__ col, int *parent, int *changed) {
    long u = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    int end = rowptr[u + 1];
    for (int e = rowptr[u]; e < end; e++) {
        int pu = parent[u], pv = parent[col[e]];
        if (pu != pv) {
            int hi = max(pu, pv), lo = min(pu, pv);
            if (lo < parent[hi] && atomicMin(&parent[hi], lo) > lo) *changed = 1;
        }
    }
}

__global__ void jump(long n, int *parent) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int p = parent[v];
    while (parent[p] != p) p = parent[p];  /* other threads only shorten the chain meanwhile */
    parent[v] = p;
}

/* All rounds; returns their number. */
static int connected_components(long n, const int *rowptr, const int *col, int *parent, int *changed) {
    long blocks = (n + THREADS - 1) / THREADS;
    init_parents<<<blocks, THREADS>>>(n, parent);
    int rounds = 0, flag = 1;
    while (flag) {
        XAPP_CUDA(cudaMemset(changed, 0, sizeof(int)));
        hook<<<blocks, THREADS>>>(n, rowptr, col, parent, changed);
        jump<<<blocks, THREADS>>>(n, parent);
        XAPP_CUDA(cudaMemcpy(&flag, changed, sizeof(int), cudaMemcpyDeviceToHost));
        rounds++;
    }
    return rounds;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long m = xapp_arg(argc, argv, 2, 1L << 21);
    int *rowptr, *col;
    xapp_seed(105);
    make_undirected(n, m, &rowptr, &col);
    long nnz = rowptr[n];
    int *parent = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *drowptr, *dcol, *dparent, *dchanged;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dparent, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dchanged, sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    int rounds = 0;
    XAPP_TIME_KERNEL(best, rounds = connected_components(n, drowptr, dcol, dparent, dchanged));
    (void)rounds;
    XAPP_CUDA(cudaMemcpy(parent, dparent, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(parent, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dparent); cudaFree(dchanged);
    free(rowptr); free(col); free(parent);
    return 0;
}
