/* spmv_coo: y = A x for a random sparse matrix given as an unsorted coordinate (COO) list: every
 * entry gathers x at its column and adds into y at its row (category: irregular: random gathers and
 * random scatter-adds, one band iteration per nonzero; atomics on the GPU). */
#include "../../harness/xapp_harness.h"

void spmv_coo(long n, long nnz, const int *restrict row, const int *restrict col, const float *restrict val,
              const float *restrict x, float *restrict y) {
    memset(y, 0, (size_t)n * sizeof(float));
#pragma xapp parallel trip(16777216)
    for (long e = 0; e < nnz; e++) y[row[e]] += val[e] * x[col[e]];
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    long nnz = xapp_arg(argc, argv, 2, 1L << 24);
    int *row = (int *)xapp_alloc((size_t)nnz * sizeof(int)), *col = (int *)xapp_alloc((size_t)nnz * sizeof(int));
    float *val = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(112);
    /* an unsorted coordinate list: entries in random order, rows and columns uniform over [0, n) */
    xapp_fill_int(row, nnz, 0, (int)n);
    xapp_fill_int(col, nnz, 0, (int)n);
    xapp_fill_float(val, nnz, 0.0f, 1.0f);
    xapp_fill_float(x, n, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, spmv_coo(n, nnz, row, col, val, x, y));
    xapp_report(best, xapp_checksum_float(y, n));
    free(row); free(col); free(val); free(x); free(y);
    return 0;
}
