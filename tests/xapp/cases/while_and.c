/* A while loop with a two-part condition: only its second test leaves the loop early. */
void skip_positive(long n, long m, const float *x, long *first) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        long k = 0;
        while (k < m && x[i * m + k] > 0.0f)
            k++;
        first[i] = k;
    }
}
