/* An inner loop whose bound is the thread index: its exit test diverges. */
void prefix(long n, const float *a, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k <= i; k++)
            s += a[k];
        out[i] = s;
    }
}
