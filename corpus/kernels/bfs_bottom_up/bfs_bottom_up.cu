/* bfs_bottom_up, CUDA: one thread per vertex; unvisited vertices scan their neighbours against the
 * frontier bitmap (read through the read-only cache); the 32 lanes of a warp own one word of the
 * next bitmap and assemble it with a shuffle reduction (distinct bits, so the sum is the OR), then
 * lane 0 stores it: no atomics. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges, each between a skewed and a uniform endpoint, stored in both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)skewed_vertex(n);
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
/* Untimed set-up (same on both sides): a queue-based BFS from vertex 0 gives each vertex a level
 * and a parent; the search is then cut just before its widest level W: frontier = the vertices at
 * level L = W - 1, parent_in = the parents of the vertices at levels <= L, -1 elsewhere, so this
 * step is the one that discovers the most vertices. */
static void bfs_prepare(long n, const int *rowptr, const int *col, uint32_t *frontier, int *parent_in) {
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int)), *parent = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *queue = (int *)xapp_alloc((size_t)n * sizeof(int));
    for (long v = 0; v < n; v++) { level[v] = -1; parent[v] = -1; }
    level[0] = 0; parent[0] = 0; queue[0] = 0;
    long head = 0, tail = 1;
    while (head < tail) {
        int u = queue[head++];
        for (int e = rowptr[u]; e < rowptr[u + 1]; e++) {
            int v = col[e];
            if (level[v] < 0) { level[v] = level[u] + 1; parent[v] = u; queue[tail++] = v; }
        }
    }
    long count[64] = {0};
    for (long v = 0; v < n; v++) if (level[v] >= 0 && level[v] < 64) count[level[v]]++;
    int widest = 0;
    for (int l = 1; l < 64; l++) if (count[l] > count[widest]) widest = l;
    int at = widest > 0 ? widest - 1 : 0;  /* the frontier's level L */
    memset(frontier, 0, (size_t)((n + 31) / 32) * sizeof(uint32_t));
    for (long v = 0; v < n; v++) {
        int visited = level[v] >= 0 && level[v] <= at;
        parent_in[v] = visited ? parent[v] : -1;
        if (level[v] == at) frontier[v >> 5] |= 1u << (v & 31);
    }
    free(level); free(parent); free(queue);
}

__global__ void bfs_bottom_up(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                              const uint32_t *__restrict__ frontier, const int *__restrict__ parent_in,
                              int *__restrict__ parent_out, uint32_t *__restrict__ next) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;  /* the grid covers whole words: no early return */
    uint32_t bit = 0;
    if (v < n) {
        int p = parent_in[v];
        if (p < 0) {
            int end = rowptr[v + 1];
            for (int e = rowptr[v]; e < end; e++) {
                int u = col[e];
                if ((__ldg(&frontier[u >> 5]) >> (u & 31)) & 1u) {
                    p = u;
                    bit = 1u << (v & 31);
                    break;
                }
            }
        }
        parent_out[v] = p;
    }
    for (int off = 16; off > 0; off >>= 1) bit += __shfl_down_sync(0xffffffffu, bit, off);
    if ((threadIdx.x & 31) == 0 && v < n) next[v >> 5] = bit;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(102);
    make_undirected(n, n * avg_deg / 2, &rowptr, &col);
    long nnz = rowptr[n];
    long words = (n + 31) / 32;
    uint32_t *frontier = (uint32_t *)xapp_alloc((size_t)words * sizeof(uint32_t));
    uint32_t *next = (uint32_t *)xapp_alloc((size_t)words * sizeof(uint32_t));
    int *parent_in = (int *)xapp_alloc((size_t)n * sizeof(int)), *parent_out = (int *)xapp_alloc((size_t)n * sizeof(int));
    bfs_prepare(n, rowptr, col, frontier, parent_in);
    int *drowptr, *dcol, *dparent_in, *dparent_out;
    uint32_t *dfrontier, *dnext;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dparent_in, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dparent_out, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dfrontier, words * sizeof(uint32_t)));
    XAPP_CUDA(cudaMalloc(&dnext, words * sizeof(uint32_t)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dparent_in, parent_in, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dfrontier, frontier, words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    long blocks = (words * 32 + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, bfs_bottom_up<<<blocks, THREADS>>>(n, drowptr, dcol, dfrontier, dparent_in, dparent_out,
                                                              dnext));
    XAPP_CUDA(cudaMemcpy(parent_out, dparent_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(next, dnext, words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(parent_out, n) + xapp_checksum_int((const int *)next, words));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dparent_in); cudaFree(dparent_out); cudaFree(dfrontier); cudaFree(dnext);
    free(rowptr); free(col); free(frontier); free(next); free(parent_in); free(parent_out);
    return 0;
}
