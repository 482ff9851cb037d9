/* recurrence_few: a few independent first-order IIR filters x_r(t+1) = a_r x_r(t) + b_r u_r(t) run
 * over a long input: each filter is a serial dependence chain, so the only parallelism is the
 * handful of filters (category: gpu-hostile). Signals are interleaved: u[t * nrec + r]. */
#include "../../harness/xapp_harness.h"

/* The time loop runs on the host around a band over the filters, so that the interleaved signals
 * are read and written contiguously, one row of nrec values per step (one pass over memory instead
 * of nrec strided ones); the coefficients and the states x_r sit in small local arrays. Each
 * filter computes the same values in the same order. */
void recurrence_few(int nrec, long len, const float *restrict coef, const float *restrict u, float *restrict y) {
    float a[nrec], b[nrec], x[nrec];   /* nrec is a handful */
    for (int r = 0; r < nrec; r++) {
        a[r] = coef[2 * r];
        b[r] = coef[2 * r + 1];
        x[r] = 0.0f;
    }
#pragma xapp trip(4194304)
    for (long t = 0; t < len; t++) {
        const float *ut = u + t * nrec;
        float *yt = y + t * nrec;
#pragma xapp parallel trip(8)
        for (int r = 0; r < nrec; r++) {
            x[r] = a[r] * x[r] + b[r] * ut[r];
            yt[r] = x[r];
        }
    }
}

int main(int argc, char **argv) {
    long len = xapp_arg(argc, argv, 1, 1L << 22);
    int nrec = (int)xapp_arg(argc, argv, 2, 8);
    float *coef = (float *)xapp_alloc((size_t)2 * nrec * sizeof(float));
    float *u = (float *)xapp_alloc((size_t)len * nrec * sizeof(float)), *y = (float *)xapp_alloc((size_t)len * nrec * sizeof(float));
    xapp_seed(25);
    for (int r = 0; r < nrec; r++) {
        xapp_fill_float(&coef[2 * r], 1, 0.5f, 0.99f);   /* stable pole */
        xapp_fill_float(&coef[2 * r + 1], 1, 0.1f, 1.0f);
    }
    xapp_fill_float(u, (size_t)len * nrec, 0.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        recurrence_few(nrec, len, coef, u, y);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(y, (size_t)len * nrec));
    free(coef); free(u); free(y);
    return 0;
}
