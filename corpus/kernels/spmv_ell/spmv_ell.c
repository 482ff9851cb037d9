/* spmv_ell: y = A x for a random sparse matrix in ELLPACK form (every row padded to the same width,
 * 16), rows 8-16 nonzeros long (category: irregular: a fixed-trip inner loop of gathers from x at
 * random columns, padding included). The C side keeps the slots of a row together (row-major), the
 * layout a CPU reads best; the GPU side stores them slot-major so that a warp's loads coalesce. */
#include "../../harness/xapp_harness.h"

/* Deterministic random sparse matrix in ELLPACK form, row-major (shared by copy with the other
 * side): n rows of width slots, row i holding a number of nonzeros uniform in [width/2, width] at
 * columns uniform over [0, n), values uniform in [0, 1); the unused slots are padding (column 0,
 * value 0), which ELL multiplies like any other slot. */
static void make_ell(long n, int width, int **col_out, float **val_out) {
    size_t slots = (size_t)n * (size_t)width;
    int *col = (int *)xapp_alloc(slots * sizeof(int));
    float *val = (float *)xapp_alloc(slots * sizeof(float));
    int *len = (int *)xapp_alloc((size_t)n * sizeof(int));
    for (long i = 0; i < n; i++) {
        len[i] = width / 2 + (int)(xapp_next() % (uint64_t)(width - width / 2 + 1));
        for (int k = 0; k < width; k++) col[(size_t)i * width + k] = k < len[i] ? (int)(xapp_next() % (uint64_t)n) : 0;
    }
    xapp_fill_float(val, slots, 0.0f, 1.0f);
    for (long i = 0; i < n; i++)
        for (int k = len[i]; k < width; k++) val[(size_t)i * width + k] = 0.0f;
    free(len);
    *col_out = col;
    *val_out = val;
}
void spmv_ell(long n, int width, const int *restrict col, const float *restrict val, const float *restrict x,
              float *restrict y) {
#pragma xapp parallel trip(2097152)
    for (long i = 0; i < n; i++) {
        const int *restrict c = col + (size_t)i * width;
        const float *restrict v = val + (size_t)i * width;
        float sum = 0.0f;
#pragma xapp trip(16)
        for (int k = 0; k < width; k++) sum += v[k] * x[c[k]];
        y[i] = sum;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    int width = (int)xapp_arg(argc, argv, 2, 16);
    int *col;
    float *val;
    xapp_seed(111);
    make_ell(n, width, &col, &val);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_fill_float(x, n, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, spmv_ell(n, width, col, val, x, y));
    xapp_report(best, xapp_checksum_float(y, n));
    free(col); free(val); free(x); free(y);
    return 0;
}
