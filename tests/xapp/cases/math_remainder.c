/* fmod is a division; hyperbolic functions are exp-based (starchart.xapp.mathlib). */
#include <math.h>
void wrap(long n, float m, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        float r = fmodf(x[i], m);
        y[i] = tanhf(r) + coshf(r);
    }
}
