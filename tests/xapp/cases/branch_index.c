/* A branch on the thread index itself: even and odd threads take different sides. */
void alternate(long n, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        if (i % 2 == 0)
            y[i] = x[i];
        else
            y[i] = -x[i];
    }
}
