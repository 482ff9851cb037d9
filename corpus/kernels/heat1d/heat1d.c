/* heat1d: explicit finite differences for the 1-D heat equation in double precision, a number of
 * time steps with fixed end values (category: stencil). One band per step; steps stay on the host. */
#include "../../harness/xapp_harness.h"

double *heat1d(long n, long steps, double r, const double *in, double *a, double *b) {
    const double *u = in;
    double *v = a;
#pragma xapp trip(20)
    for (long t = 0; t < steps; t++) {
#pragma xapp parallel trip(4194302)
        for (long i = 1; i < n - 1; i++) {
            v[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u = v;
        v = v == a ? b : a;
    }
    return (double *)u;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22), steps = xapp_arg(argc, argv, 2, 20);
    size_t bytes = n * sizeof(double);
    double *in = xapp_alloc(bytes), *a = xapp_alloc(bytes), *b = xapp_alloc(bytes);
    xapp_seed(6);
    xapp_fill_double(in, n, 0.0, 100.0);
    memcpy(a, in, bytes);  /* fixed ends */
    memcpy(b, in, bytes);
    double *out = NULL;
    XAPP_TIME_REGION(best, out = heat1d(n, steps, 0.25, in, a, b));
    xapp_report(best, xapp_checksum_double(out, n));
    free(in); free(a); free(b);
    return 0;
}
