/* gemv_t: transposed matrix-vector product y = A^T x with a row-major float matrix (category:
 * dense-linear-algebra; the band runs over columns, so each thread strides down a column). */
#include "../../harness/xapp_harness.h"

void gemv_t(long rows, long cols, const float *a, const float *x, float *y) {
#pragma xapp parallel trip(4096)
    for (long j = 0; j < cols; j++) {
        float sum = 0.0f;
#pragma xapp trip(4096)
        for (long i = 0; i < rows; i++) {
            sum += a[i * cols + j] * x[i];
        }
        y[j] = sum;
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = xapp_alloc(rows * cols * sizeof(float)), *x = xapp_alloc(rows * sizeof(float));
    float *y = xapp_alloc(cols * sizeof(float));
    xapp_seed(16);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    xapp_fill_float(x, rows, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, gemv_t(rows, cols, a, x, y));
    xapp_report(best, xapp_checksum_float(y, cols));
    free(a); free(x); free(y);
    return 0;
}
