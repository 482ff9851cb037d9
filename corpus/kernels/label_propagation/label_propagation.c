/* label_propagation: ITERS synchronous sweeps of minimum-label propagation (the connected-
 * components kernel) on a random directed graph: each vertex takes the smallest label among
 * itself and its in-neighbours (category: irregular: random gathers, varying degree).
 * The host loop over sweeps is serial; the band is the vertex loop of one sweep. */
#include "../../harness/xapp_harness.h"

/* Deterministic random graph in CSR form (shared by copy with the .cu side): vertex v has a number
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

/* Runs `iters` sweeps from label0 (left unchanged), alternating between buf0 and buf1;
 * returns the buffer holding the last sweep. */
int *label_propagation(long n, int iters, const int *restrict rowptr, const int *restrict col, const int *label0,
                       int *buf0, int *buf1) {
    const int *src = label0;
    int *dst = buf0;
#pragma xapp trip(5)
    for (int it = 0; it < iters; it++) {
        dst = (it & 1) ? buf1 : buf0;
#pragma xapp parallel trip(1048576)
        for (long v = 0; v < n; v++) {
            int m = src[v];
#pragma xapp trip(8)
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
                int l = src[col[e]];
#pragma xapp prob(0.19)
                if (l < m) m = l;
            }
            dst[v] = m;
        }
        src = dst;
    }
    return dst;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 8);
    int iters = (int)xapp_arg(argc, argv, 3, 5);
    int *rowptr, *col;
    xapp_seed(14);
    make_csr(n, avg_deg, &rowptr, &col);
    /* initial labels: a random permutation-like spread, so the minimum starts anywhere */
    int *label0 = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_int(label0, n, 0, 1 << 30);
    int *buf0 = (int *)xapp_alloc((size_t)n * sizeof(int)), *buf1 = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *result = buf0;
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        result = label_propagation(n, iters, rowptr, col, label0, buf0, buf1);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(result, n));
    free(rowptr); free(col); free(label0); free(buf0); free(buf1);
    return 0;
}
