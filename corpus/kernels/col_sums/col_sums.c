/* col_sums: the sum of each column of a row-major float matrix (category: reduction; the band
 * runs over columns, coalesced across GPU threads; the C side walks the rows in a host loop
 * around it, so that it reads the matrix contiguously). */
#include "../../harness/xapp_harness.h"

void col_sums(long rows, long cols, const float *restrict a, float *restrict out) {
    /* Row by row, so the matrix is read contiguously: out[] holds the running column sums
     * (each column is still summed in row order). The row loop stays on the host; the band
     * is the column loop inside it. */
    for (long j = 0; j < cols; j++) out[j] = 0.0f;
#pragma xapp trip(4096)
    for (long i = 0; i < rows; i++) {
        const float *restrict row = a + i * cols;
#pragma xapp parallel trip(4096)
        for (long j = 0; j < cols; j++) {
            out[j] += row[j];
        }
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
