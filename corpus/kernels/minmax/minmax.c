/* minmax: smallest and largest value of a float array (category: reduction; compare-and-select). */
#include "../../harness/xapp_harness.h"

void minmax(long n, const float *restrict x, float *restrict out) {
    float lo = x[0], hi = x[0];
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    out[0] = lo;
    out[1] = hi;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    float *x = xapp_alloc(n * sizeof(float));
    float out[2];
    xapp_seed(12);
    xapp_fill_float(x, n, -1000.0f, 1000.0f);
    XAPP_TIME_REGION(best, minmax(n, x, out));
    xapp_report(best, xapp_checksum_float(out, 2));
    free(x);
    return 0;
}
