/* A rarely taken branch, annotated with its probability. */
#include <math.h>
void clip_sqrt(long n, float t, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        float v = x[i];
#pragma xapp prob(0.25)
        if (v > t)
            v = sqrtf(v);
        y[i] = v;
    }
}
