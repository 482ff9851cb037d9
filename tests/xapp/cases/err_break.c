/* Unsupported: the band loop is left early, so its iterations are not independent. */
long find(long n, const int *x, int key) {
    long at = -1;
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        if (x[i] == key) {
            at = i;
            break;
        }
    }
    return at;
}
