/* Constant trip counts of several loop shapes (also checked against LLVM's scalar evolution). */
void shapes(long n, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 10; k > 0; k -= 3)
            s += 1.0f;
        for (int k = 0; k <= 15; k++)
            s += 2.0f;
        for (unsigned k = 0; k != 16; k += 4)
            s += 3.0f;
        int k = 0;
        do { s += 4.0f; k++; } while (k < 5);
        for (long j = -4; j < 4; j += 2)
            s += 5.0f;
        out[i] = s;
    }
}
