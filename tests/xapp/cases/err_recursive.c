/* Unsupported: a recursive helper cannot be inlined into the band. */
static long fib(long k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }
void fibs(long n, long *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++)
        out[i] = fib(i % 20);
}
