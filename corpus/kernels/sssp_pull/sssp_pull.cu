/* sssp_pull, CUDA: GROUP lanes per vertex stride over its in-edges (coalesced edge reads, random
 * distance gathers through the read-only cache) and combine their minima with warp shuffles; the
 * minimum does not depend on the order, so the result is exact. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define INF 1.0e30f
#define GROUP 8      /* lanes per vertex: about the median in-degree */
#define THREADS 256

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic directed random graph as in-edge CSR (shared by copy with the other side): m edges
 * u -> v with v skewed (hubs receive many edges) and u uniform; rowptr/col list the in-neighbours
 * u of each v, in generation order. */
static void make_in_csr(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m > 2147483647.0) {
        fprintf(stderr, "xapp: m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *dst = (int *)xapp_alloc((size_t)m * sizeof(int)), *src = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        dst[e] = (int)skewed_vertex(n);
        src[e] = (int)(xapp_next() % (uint64_t)n);
    }
    int *rowptr = (int *)calloc((size_t)n + 1, sizeof(int));
    int *col = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) rowptr[dst[e] + 1]++;
    for (long v = 0; v < n; v++) rowptr[v + 1] += rowptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, rowptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) col[fill[dst[e]]++] = src[e];
    free(dst); free(src); free(fill);
    *rowptr_out = rowptr;
    *col_out = col;
}
__global__ void sssp_pull(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                          const float *__restrict__ weight, const float *__restrict__ dist_in,
                          float *__restrict__ dist_out) {
    long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long v = tid / GROUP;
    int lane = (int)(tid % GROUP);
    float d = INF;
    if (v < n) {
        if (lane == 0) d = dist_in[v];
        int end = rowptr[v + 1];
        for (int e = rowptr[v] + lane; e < end; e += GROUP) d = fminf(d, __ldg(&dist_in[col[e]]) + weight[e]);
    }
    /* every lane of the warp reaches the shuffles (no early return), as the full mask requires */
    for (int off = GROUP / 2; off > 0; off >>= 1) d = fminf(d, __shfl_down_sync(0xffffffffu, d, off, GROUP));
    if (v < n && lane == 0) dist_out[v] = d;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 12);
    int *rowptr, *col;
    xapp_seed(104);
    make_in_csr(n, n * avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    float *weight = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *dist_in = (float *)xapp_alloc((size_t)n * sizeof(float)), *dist_out = (float *)xapp_alloc((size_t)n * sizeof(float));
    int *reached = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_float(weight, nnz, 1.0f, 9.0f);  /* a span of 8: exact with or without FMA contraction */
    xapp_fill_float(dist_in, n, 0.0f, 100.0f);
    xapp_fill_int(reached, n, 0, 2);  /* a search under way: half the vertices still unreached */
    for (long v = 0; v < n; v++) if (!reached[v]) dist_in[v] = INF;
    int *drowptr, *dcol;
    float *dweight, *ddist_in, *ddist_out;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dweight, (nnz ? nnz : 1) * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&ddist_in, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&ddist_out, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dweight, weight, nnz * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(ddist_in, dist_in, n * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (n * GROUP + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, sssp_pull<<<blocks, THREADS>>>(n, drowptr, dcol, dweight, ddist_in, ddist_out));
    XAPP_CUDA(cudaMemcpy(dist_out, ddist_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (long v = 0; v < n; v++) if (dist_out[v] >= INF) dist_out[v] = -1.0f;  /* unreached: -1 in the checksum */
    xapp_report(best, xapp_checksum_float(dist_out, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dweight); cudaFree(ddist_in); cudaFree(ddist_out);
    free(rowptr); free(col); free(weight); free(dist_in); free(dist_out); free(reached);
    return 0;
}
