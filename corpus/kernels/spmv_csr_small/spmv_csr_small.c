/* spmv_csr_small: input-size variant of corpus kernel spmv_csr (209715 rows, a tenth of spmv_csr's); same code, other default args and trip counts. */
/* spmv_csr: y = A x for a random sparse matrix in CSR form; one row per band iteration,
 * a data-dependent number of nonzeros per row, gathers from x at random columns
 * (category: irregular). */
#include "../../harness/xapp_harness.h"

/* Deterministic random CSR structure (shared by copy with the .cu side): row i holds a number of
 * entries uniform in [0, 2*avg_deg], at columns uniform over [0, n). */
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

void spmv_csr(long n, const int *restrict rowptr, const int *restrict col, const float *restrict val,
              const float *restrict x, float *restrict y) {
#pragma xapp parallel trip(209715)
    for (long i = 0; i < n; i++) {
        float sum = 0.0f;
        int end = rowptr[i + 1];
#pragma xapp trip(16)
        for (int e = rowptr[i]; e < end; e++) sum += val[e] * x[col[e]];
        y[i] = sum;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 209715L);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(11);
    make_csr(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    float *val = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_fill_float(val, nnz, 0.0f, 1.0f);   /* positive data: the checksum cannot cancel */
    xapp_fill_float(x, n, 0.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        spmv_csr(n, rowptr, col, val, x, y);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(y, n));
    free(rowptr); free(col); free(val); free(x); free(y);
    return 0;
}
