/* col_sums: the sum of each column of a row-major float matrix (category: reduction; the band
 * runs over columns, so each thread's loop strides by a row: slow on a CPU, coalesced across
 * GPU threads). */
#include "../../harness/xapp_harness.h"

void col_sums(long rows, long cols, const float *a, float *out) {
#pragma xapp parallel trip(4096)
    for (long j = 0; j < cols; j++) {
        float sum = 0.0f;
#pragma xapp trip(4096)
        for (long i = 0; i < rows; i++) {
            sum += a[i * cols + j];
        }
        out[j] = sum;
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = xapp_alloc(rows * cols * sizeof(float)), *out = xapp_alloc(cols * sizeof(float));
    xapp_seed(14);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, col_sums(rows, cols, a, out));
    xapp_report(best, xapp_checksum_float(out, cols));
    free(a); free(out);
    return 0;
}
