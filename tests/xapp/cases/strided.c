/* Strided read: x[2*i] is two elements apart in consecutive threads. */
void gather_even(long n, const float *x, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        out[i] = x[2 * i];
    }
}
