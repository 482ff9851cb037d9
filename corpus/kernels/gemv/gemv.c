/* gemv: matrix-vector product y = A x with a row-major float matrix (category:
 * dense-linear-algebra; one dot product of a contiguous row per band iteration). */
#include "../../harness/xapp_harness.h"

void gemv(long rows, long cols, const float *restrict a, const float *restrict x, float *restrict y) {
#pragma xapp parallel trip(16384)
    for (long i = 0; i < rows; i++) {
        float sum = 0.0f;
#pragma xapp trip(4096)
        for (long j = 0; j < cols; j++) {
            sum += a[i * cols + j] * x[j];
        }
        y[i] = sum;
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 16384), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = xapp_alloc(rows * cols * sizeof(float)), *x = xapp_alloc(cols * sizeof(float));
    float *y = xapp_alloc(rows * sizeof(float));
    xapp_seed(15);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    xapp_fill_float(x, cols, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, gemv(rows, cols, a, x, y));
    xapp_report(best, xapp_checksum_float(y, rows));
    free(a); free(x); free(y);
    return 0;
}
