/* Unknown inner bounds: one annotated with a trip count, one left to the default. */
void two_loops(long n, long m, const float *a, float *out) {
#pragma xapp parallel trip(4096)
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
#pragma xapp trip(4)
        for (long k = 0; k < m; k++)
            s += a[k];
        for (long k = 0; k < m; k++)
            s -= a[k];
        out[i] = s;
    }
}
