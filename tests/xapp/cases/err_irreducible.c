/* Unsupported: a goto cycle with two entries inside the band. */
void jumpy(long n, const int *x, int *y) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        int v = x[i];
        if (v > 0)
            goto second;
    first:
        v -= 3;
    second:
        v -= 1;
        if (v > 10)
            goto first;
        y[i] = v;
    }
}
