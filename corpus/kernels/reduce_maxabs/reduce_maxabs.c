/* reduce_maxabs: the largest |x[i]| of a float array and the first index holding it, as BLAS
 * isamax (category: reduction). One pass; the running maximum is rarely replaced, so the branch
 * is almost never taken and well predicted. */
#include "../../harness/xapp_harness.h"

/* Returns the first index of the largest |x[i]|; its value goes to *value. */
long reduce_maxabs(long n, const float *restrict x, float *value) {
    float best = -1.0f;
    long at = 0;
#pragma xapp parallel trip(67108864)
    for (long i = 0; i < n; i++) {
        float v = fabsf(x[i]);
#pragma xapp prob(0.0000003)
        if (v > best) {   /* strictly greater: ties keep the first index */
            best = v;
            at = i;
        }
    }
    *value = best;
    return at;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 26);
    float *x = xapp_alloc(n * sizeof(float));
    xapp_seed(502);
    xapp_fill_float(x, n, -1000.0f, 1000.0f);
    float value = 0.0f;
    long at = 0;
    XAPP_TIME_REGION(best, at = reduce_maxabs(n, x, &value));
    double out[2] = {value, (double)at};
    xapp_report(best, xapp_checksum_double(out, 2));
    free(x);
    return 0;
}
