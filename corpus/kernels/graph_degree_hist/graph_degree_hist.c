/* graph_degree_hist: the degree histogram of a graph in CSR form with a heavy-tailed degree
 * distribution: each vertex's degree (difference of its row pointers) increments one of 256 bins
 * (category: reduction: a streaming read, increments concentrated on a few hot bins; shared-memory
 * histograms and atomics on the GPU). */
#include "../../harness/xapp_harness.h"

#define BINS 256  /* degrees 0..254, and one bin for 255 and above */

/* Deterministic CSR row pointers of a graph with a heavy-tailed degree distribution (shared by copy
 * with the other side): vertex v draws a scale g, geometric (P(g = k) = 2^-(k+1), at most 12), and a
 * degree uniform in [0, 2^(g+1)); only the row pointers are built, as the histogram needs no more. */
static int *make_rowptr(long n) {
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    long total = 0;
    rowptr[0] = 0;
    for (long v = 0; v < n; v++) {
        uint64_t r = xapp_next();
        int g = 0;
        while (g < 12 && ((r >> g) & 1) == 0) g++;
        total += (long)(xapp_next() % ((uint64_t)2 << g));
        if (total > 2147483647L) {
            fprintf(stderr, "xapp: the edge count must fit in an int (n=%ld is too large)\n", n);
            exit(2);
        }
        rowptr[v + 1] = (int)total;
    }
    return rowptr;
}
void graph_degree_hist(long n, const int *restrict rowptr, int *restrict hist) {
    for (int b = 0; b < BINS; b++) hist[b] = 0;
#pragma xapp parallel trip(50331648)
    for (long v = 0; v < n; v++) {
        int d = rowptr[v + 1] - rowptr[v];
        hist[d < BINS - 1 ? d : BINS - 1]++;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 3L << 24);
    xapp_seed(115);
    int *rowptr = make_rowptr(n);
    int hist[BINS];
    XAPP_TIME_REGION(best, graph_degree_hist(n, rowptr, hist));
    xapp_report(best, xapp_checksum_int(hist, BINS));
    free(rowptr);
    return 0;
}
