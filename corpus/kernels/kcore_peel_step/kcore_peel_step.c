/* kcore_peel_step: one synchronous peeling step of k-core decomposition on an undirected random
 * graph already peeled to its (k-1)-core: every live vertex of degree < k dies and decrements the
 * degrees of all its neighbours (category: data-dependent-branches: a sparse, data-dependent set of
 * vertices does the work, scattered decrements, atomics on the GPU). */
#include "../../harness/xapp_harness.h"

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges between a uniform vertex and another uniform vertex (never itself), stored in
 * both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0 || n < 2) {
        fprintf(stderr, "xapp: 2*m must fit in an int and n >= 2 (got n=%ld, m=%ld)\n", n, m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)(xapp_next() % (uint64_t)n);
        b[e] = (int)((a[e] + 1 + (long)(xapp_next() % (uint64_t)(n - 1))) % n);
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
/* One peeling step on the host, for the untimed set-up (same code as the timed step); returns the
 * number of vertices it removed. */
static long host_peel_step(long n, const int *rowptr, const int *col, int k, const unsigned char *alive_in,
                           const int *deg_in, unsigned char *alive_out, int *deg_out) {
    long removed = 0;
    memcpy(deg_out, deg_in, (size_t)n * sizeof(int));
    for (long v = 0; v < n; v++) {
        unsigned char a = alive_in[v];
        if (a && deg_in[v] < k) {
            a = 0;
            removed++;
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) deg_out[col[e]]--;
        }
        alive_out[v] = a;
    }
    return removed;
}

/* Untimed set-up (same on both sides): peel the graph down to its (k-1)-core; alive/deg hold it. */
static void peel_prepare(long n, const int *rowptr, const int *col, int k, unsigned char *alive, int *deg,
                         unsigned char *alive_tmp, int *deg_tmp) {
    for (long v = 0; v < n; v++) {
        alive[v] = 1;
        deg[v] = rowptr[v + 1] - rowptr[v];
    }
    while (host_peel_step(n, rowptr, col, k - 1, alive, deg, alive_tmp, deg_tmp) > 0) {
        memcpy(alive, alive_tmp, (size_t)n);
        memcpy(deg, deg_tmp, (size_t)n * sizeof(int));
    }
}
void kcore_peel_step(long n, const int *restrict rowptr, const int *restrict col, int k,
                     const unsigned char *restrict alive_in, const int *restrict deg_in,
                     unsigned char *restrict alive_out, int *restrict deg_out) {
    memcpy(deg_out, deg_in, (size_t)n * sizeof(int));
#pragma xapp parallel trip(4194304)
    for (long v = 0; v < n; v++) {
        unsigned char a = alive_in[v];
#pragma xapp prob(0.071)
        if (a && deg_in[v] < k) {
            a = 0;
            int end = rowptr[v + 1];
#pragma xapp trip(12.3)
            for (int e = rowptr[v]; e < end; e++) deg_out[col[e]]--;
        }
        alive_out[v] = a;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int k = (int)xapp_arg(argc, argv, 3, 12);
    int *rowptr, *col;
    xapp_seed(110);
    make_undirected(n, n * avg_deg / 2, &rowptr, &col);
    unsigned char *alive_in = (unsigned char *)xapp_alloc((size_t)n), *alive_out = (unsigned char *)xapp_alloc((size_t)n);
    int *deg_in = (int *)xapp_alloc((size_t)n * sizeof(int)), *deg_out = (int *)xapp_alloc((size_t)n * sizeof(int));
    peel_prepare(n, rowptr, col, k, alive_in, deg_in, alive_out, deg_out);
    XAPP_TIME_REGION(best, kcore_peel_step(n, rowptr, col, k, alive_in, deg_in, alive_out, deg_out));
    xapp_report(best, xapp_checksum_uchar(alive_out, n) + xapp_checksum_int(deg_out, n));
    free(rowptr); free(col); free(alive_in); free(alive_out); free(deg_in); free(deg_out);
    return 0;
}
