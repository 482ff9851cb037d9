/* Transcendental mix: sin, cos, exp, log, sqrt and a division. */
#include <math.h>
void mix(long n, const double *x, double *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        double v = x[i];
        y[i] = sin(v) * cos(v) + exp(v) / log(v) + sqrt(v);
    }
}
