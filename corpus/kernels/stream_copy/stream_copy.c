/* stream_copy: c[i] = a[i] over an array of doubles, the STREAM "Copy" kernel (category:
 * streaming; no arithmetic at all, 16 bytes moved per element: the memory system alone). */
#include "../../harness/xapp_harness.h"

void stream_copy(long n, const double *restrict a, double *restrict c) {
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        c[i] = a[i];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    double *a = xapp_alloc(n * sizeof(double)), *c = xapp_alloc(n * sizeof(double));
    xapp_seed(501);
    xapp_fill_double(a, n, -1.0, 1.0);
    memset(c, 0, n * sizeof(double));   /* touch the output once, outside the timing */
    XAPP_TIME_REGION(best, stream_copy(n, a, c));
    xapp_report(best, xapp_checksum_double(c, n));
    free(a); free(c);
    return 0;
}
