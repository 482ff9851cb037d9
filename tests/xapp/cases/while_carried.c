/* while/do bands whose header carries a value besides the counter: a running sum and a hash. */
void running_sum(long n, const float *a, float *out) {
    long i = 0;
    float s = 0.0f;
#pragma xapp parallel
    while (i < n) {
        s += a[i] * 2.0f;
        i++;
    }
    *out = s;
}

void hash_chain(long n, long *h) {
    long i = 0;
    long k = 7;
#pragma xapp parallel
    do {
        k = k * 31 + i;
        h[i] = k;
        i++;
    } while (i < n);
}
