/* Transpose over a 2-D band: the read runs along j (coalesced), the write along n*j. */
void transpose(long n, const float *in, float *out) {
#pragma xapp parallel(2)
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++) {
            out[j * n + i] = in[i * n + j];
        }
    }
}
