/* A branch on the data of each thread's element: it diverges. */
void relu(long n, const float *x, float *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        if (x[i] > 0.0f)
            y[i] = x[i];
        else
            y[i] = 0.0f;
    }
}
