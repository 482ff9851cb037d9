/* A branch on an argument: every thread takes the same side, no divergence. */
void scale_or_copy(long n, int mode, float s, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        if (mode)
            y[i] = s * x[i];
        else
            y[i] = x[i];
    }
}
