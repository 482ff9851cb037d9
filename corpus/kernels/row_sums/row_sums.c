/* row_sums: the sum of each row of a row-major float matrix (category: reduction; one
 * sequential reduction per band iteration, rows contiguous in memory). */
#include "../../harness/xapp_harness.h"

void row_sums(long rows, long cols, const float *restrict a, float *restrict out) {
#pragma xapp parallel trip(16384)
    for (long i = 0; i < rows; i++) {
        float sum = 0.0f;   /* in a register; -ffast-math lets the compiler split it into vector partial sums */
#pragma xapp trip(4096)
        for (long j = 0; j < cols; j++) {
            sum += a[i * cols + j];
        }
        out[i] = sum;
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 16384), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = xapp_alloc(rows * cols * sizeof(float)), *out = xapp_alloc(rows * sizeof(float));
    xapp_seed(13);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, row_sums(rows, cols, a, out));
    xapp_report(best, xapp_checksum_float(out, rows));
    free(a); free(out);
    return 0;
}
