/* A helper function (inlined), a uniform loop before the band, and a main with loops. */
#include <stdlib.h>
static float square(float v) { return v * v; }

void energy(long n, const float *x, float *out) {
    for (long r = 0; r < 3; r++)
        out[r] = 0.0f;
#pragma xapp parallel
    for (long i = 0; i < n; i++)
        out[i] = square(x[i]);
}

int main(void) {
    long n = 1000;
    float *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
    for (long i = 0; i < n; i++)
        x[i] = (float)i;
    energy(n, x, out);
    free(x);
    free(out);
    return 0;
}
