/* tridiagonal_few: a few independent tridiagonal systems solved by the Thomas algorithm (a serial
 * forward elimination with a division per row, then a serial back substitution): the only
 * parallelism is the handful of systems (category: gpu-hostile).
 * Systems are interleaved: row i of system s is at [i * ns + s]; a = sub-, b = main, c = super-diagonal. */
#include "../../harness/xapp_harness.h"

/* Row by row over all systems: the row loops run on the host around a band over the systems, so
 * the interleaved arrays are walked contiguously, once (instead of ns strided passes); each system
 * still does the same operations in the same order. The band is the forward elimination; the back
 * substitution is a second loop of the same shape. */
void tridiagonal_few(int ns, long n, const float *restrict a, const float *restrict b, const float *restrict c,
                     const float *restrict d, float *restrict cp, float *restrict dp, float *restrict x) {
    for (int s = 0; s < ns; s++) {
        cp[s] = c[s] / b[s];
        dp[s] = d[s] / b[s];
    }
#pragma xapp trip(262143)
    for (long i = 1; i < n; i++) {
        long k0 = i * ns;
#pragma xapp parallel trip(16)
        for (int s = 0; s < ns; s++) {
            long k = k0 + s;
            float m = 1.0f / (b[k] - a[k] * cp[k - ns]);
            cp[k] = c[k] * m;
            dp[k] = (d[k] - a[k] * dp[k - ns]) * m;
        }
    }
    for (int s = 0; s < ns; s++) x[(n - 1) * ns + s] = dp[(n - 1) * ns + s];
    for (long i = n - 2; i >= 0; i--) {
        long k0 = i * ns;
        for (int s = 0; s < ns; s++) x[k0 + s] = dp[k0 + s] - cp[k0 + s] * x[k0 + ns + s];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    int ns = (int)xapp_arg(argc, argv, 2, 16);
    size_t cnt = (size_t)n * ns, bytes = cnt * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *b = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *d = (float *)xapp_alloc(bytes), *cp = (float *)xapp_alloc(bytes), *dp = (float *)xapp_alloc(bytes);
    float *x = (float *)xapp_alloc(bytes);
    xapp_seed(26);
    /* diagonally dominant M-matrix (b > |a| + |c|, a, c <= 0): stable, and x > 0 for d > 0 */
    xapp_fill_float(a, cnt, -1.0f, 0.0f);
    xapp_fill_float(b, cnt, 2.5f, 3.5f);
    xapp_fill_float(c, cnt, -1.0f, 0.0f);
    xapp_fill_float(d, cnt, 0.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        tridiagonal_few(ns, n, a, b, c, d, cp, dp, x);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(x, cnt));
    free(a); free(b); free(c); free(d); free(cp); free(dp); free(x);
    return 0;
}
