/* transpose: out = in^T for a row-major float matrix (category: dense-linear-algebra; pure data
 * movement, one side of every access is strided). */
#include "../../harness/xapp_harness.h"

void transpose(long rows, long cols, const float *in, float *out) {
#pragma xapp parallel(2) trip(4096)
    for (long i = 0; i < rows; i++) {
#pragma xapp trip(4096)
        for (long j = 0; j < cols; j++) {
            out[j * rows + i] = in[i * cols + j];
        }
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    float *in = xapp_alloc(rows * cols * sizeof(float)), *out = xapp_alloc(rows * cols * sizeof(float));
    xapp_seed(18);
    xapp_fill_float(in, rows * cols, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, transpose(rows, cols, in, out));
    xapp_report(best, xapp_checksum_float(out, rows * cols));
    free(in); free(out);
    return 0;
}
