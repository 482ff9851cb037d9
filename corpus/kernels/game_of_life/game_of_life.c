/* game_of_life: Conway's Game of Life on an n x n byte grid with a dead border, a number of
 * generations (category: stencil; data-dependent branches on the cell state). */
#include "../../harness/xapp_harness.h"

unsigned char *game_of_life(long n, long generations, const unsigned char *in, unsigned char *a,
                            unsigned char *b) {
    const unsigned char *src = in;
    unsigned char *dst = a;
#pragma xapp trip(10)
    for (long g = 0; g < generations; g++) {
#pragma xapp parallel(2) trip(4094)
        for (long i = 1; i < n - 1; i++) {
#pragma xapp trip(4094)
            for (long j = 1; j < n - 1; j++) {
                const unsigned char *p = src + i * n + j;
                int count = p[-n - 1] + p[-n] + p[-n + 1] + p[-1] + p[1] + p[n - 1] + p[n] + p[n + 1];
                if (p[0])
                    dst[i * n + j] = count == 2 || count == 3;
                else
                    dst[i * n + j] = count == 3;
            }
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return (unsigned char *)src;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 4096), generations = xapp_arg(argc, argv, 2, 10);
    size_t bytes = n * n;
    unsigned char *in = xapp_alloc(bytes), *a = xapp_alloc(bytes), *b = xapp_alloc(bytes);
    xapp_seed(9);
    xapp_fill_uchar(in, bytes, 0, 1);
    for (long i = 0; i < n; i++) in[i] = in[(n - 1) * n + i] = in[i * n] = in[i * n + n - 1] = 0;  /* dead border */
    memcpy(a, in, bytes);
    memcpy(b, in, bytes);
    unsigned char *out = NULL;
    XAPP_TIME_REGION(best, out = game_of_life(n, generations, in, a, b));
    xapp_report(best, xapp_checksum_uchar(out, bytes));
    free(in); free(a); free(b);
    return 0;
}
