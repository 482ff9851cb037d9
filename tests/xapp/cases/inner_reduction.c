/* A dot product per thread: an inner reduction loop with a constant trip count. */
void rowdot(long n, const float *a, const float *w, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < 16; k++)
            s += a[i * 16 + k] * w[k];
        out[i] = s;
    }
}
