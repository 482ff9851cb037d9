/* prefix_sum_serial: inclusive running sum along each of a few long rows, out[r][j] = sum of
 * x[r][0..j], computed the serial way (one loop-carried float addition per element), so the only
 * parallelism a port gets is the handful of rows (category: gpu-hostile). Rows are contiguous
 * (row-major), so each row is one sequential read and one sequential write stream. */
#include "../../harness/xapp_harness.h"

void prefix_sum_rows(int rows, long len, const float *restrict x, float *restrict out) {
#pragma xapp parallel trip(16)
    for (int r = 0; r < rows; r++) {
        const float *restrict xr = x + (size_t)r * len;
        float *restrict o = out + (size_t)r * len;
        float s = 0.0f;
#pragma xapp trip(4194304)
        for (long j = 0; j < len; j++) {
            s += xr[j];
            o[j] = s;
        }
    }
}

int main(int argc, char **argv) {
    int rows = (int)xapp_arg(argc, argv, 1, 16);
    long len = xapp_arg(argc, argv, 2, 1L << 22);
    size_t n = (size_t)rows * len;
    float *x = (float *)xapp_alloc(n * sizeof(float)), *out = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(601);
    xapp_fill_float(x, n, -1.0f, 1.0f);   /* a random walk per row: sums stay near sqrt(len) */
    XAPP_TIME_REGION(best, prefix_sum_rows(rows, len, x, out));
    xapp_report(best, xapp_checksum_float(out, n));
    free(x); free(out);
    return 0;
}
