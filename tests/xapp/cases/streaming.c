/* Streaming: one multiply-add per element, every access stride 1. */
void saxpy(long n, float a, const float *x, const float *y, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        out[i] = a * x[i] + y[i];
    }
}
