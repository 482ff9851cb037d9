/* gemv_t: transposed matrix-vector product y = A^T x with a row-major float matrix (category:
 * dense-linear-algebra; the band runs over columns, coalesced across GPU threads; the C side walks
 * the rows in a host loop around it, so that it reads the matrix contiguously). */
#include "../../harness/xapp_harness.h"

void gemv_t(long rows, long cols, const float *restrict a, const float *restrict x, float *restrict y) {
    /* Row by row, so the matrix is read contiguously: y[] holds the running sums (each y[j]
     * still adds its terms in row order). The row loop stays on the host; the band is the
     * column loop inside it. */
    for (long j = 0; j < cols; j++) y[j] = 0.0f;
#pragma xapp trip(4096)
    for (long i = 0; i < rows; i++) {
        const float *restrict row = a + i * cols;
        const float xi = x[i];
#pragma xapp parallel trip(4096)
        for (long j = 0; j < cols; j++) {
            y[j] += row[j] * xi;
        }
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
