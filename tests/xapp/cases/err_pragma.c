/* Unsupported: a malformed annotation. */
void copy(long n, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
#pragma xapp trip(many)
        for (long k = 0; k < 4; k++)
            y[i] += x[k];
    }
}
