/* triad: STREAM triad a[i] = b[i] + s*c[i] in double precision (category: streaming). */
#include "../../harness/xapp_harness.h"

void triad(long n, double s, const double *restrict b, const double *restrict c, double *restrict a) {
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        a[i] = b[i] + s * c[i];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    double *a = xapp_alloc(n * sizeof(double)), *b = xapp_alloc(n * sizeof(double));
    double *c = xapp_alloc(n * sizeof(double));
    xapp_seed(2);
    xapp_fill_double(b, n, -1.0, 1.0);
    xapp_fill_double(c, n, -1.0, 1.0);
    XAPP_TIME_REGION(best, triad(n, 3.0, b, c, a));
    xapp_report(best, xapp_checksum_double(a, n));
    free(a); free(b); free(c);
    return 0;
}
