/* coloring_jp_round: one round of Jones-Plassmann graph colouring with random priorities on an
 * undirected random graph, half coloured by earlier rounds: an uncoloured vertex whose priority
 * beats all its uncoloured neighbours takes the smallest colour none of its coloured neighbours has
 * (a 64-bit mask); the others wait (category: graph: early-exit neighbour scans, divergent winners
 * and losers, random gathers of colours and priorities). */
#include "../../harness/xapp_harness.h"

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges between a uniform vertex and another uniform vertex (never itself), stored in
 * both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0 || n < 2) {
        fprintf(stderr, "xapp: 2*m must fit in an int and n >= 2 (got n=%ld, m=%ld)\n", n, m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)(xapp_next() % (uint64_t)n);
        b[e] = (int)((a[e] + 1 + (long)(xapp_next() % (uint64_t)(n - 1))) % n);
    }
    int *rowptr = (int *)calloc((size_t)n + 1, sizeof(int));
    int *col = (int *)xapp_alloc((size_t)(2 * m) * sizeof(int));
    for (long e = 0; e < m; e++) { rowptr[a[e] + 1]++; rowptr[b[e] + 1]++; }
    for (long v = 0; v < n; v++) rowptr[v + 1] += rowptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, rowptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) { col[fill[a[e]]++] = b[e]; col[fill[b[e]]++] = a[e]; }
    free(a); free(b); free(fill);
    *rowptr_out = rowptr;
    *col_out = col;
}
/* One Jones-Plassmann round on the host, for the untimed set-up (same code as the timed round). */
static void host_jp_round(long n, const int *rowptr, const int *col, const int *prio, const int *color_in,
                          int *color_out) {
    for (long v = 0; v < n; v++) {
        int c = color_in[v];
        if (c < 0) {
            int pv = prio[v], win = 1;
            uint64_t used = 0;
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
                int u = col[e], cu = color_in[u];
                if (cu >= 0) used |= (uint64_t)1 << cu;
                else if (prio[u] > pv || (prio[u] == pv && u > v)) { win = 0; break; }
            }
            if (win) { c = 0; while ((used >> c) & 1) c++; }
        }
        color_out[v] = c;
    }
}

/* Untimed set-up (same on both sides): JP rounds from an uncoloured graph until at least half the
 * vertices are coloured; color holds that state. Colours stay below 64 because every degree does. */
static void jp_prepare(long n, const int *rowptr, const int *col, const int *prio, int *color, int *tmp) {
    for (long v = 0; v < n; v++) {
        if (rowptr[v + 1] - rowptr[v] >= 64) {
            fprintf(stderr, "xapp: vertex %ld has degree >= 64; the colour masks need fewer\n", v);
            exit(2);
        }
        color[v] = -1;
    }
    for (int round = 0; round < 1000; round++) {
        long coloured = 0;
        for (long v = 0; v < n; v++) coloured += color[v] >= 0;
        if (2 * coloured >= n) break;
        host_jp_round(n, rowptr, col, prio, color, tmp);
        memcpy(color, tmp, (size_t)n * sizeof(int));
    }
}
void coloring_jp_round(long n, const int *restrict rowptr, const int *restrict col, const int *restrict prio,
                       const int *restrict color_in, int *restrict color_out) {
#pragma xapp parallel trip(2097152)
    for (long v = 0; v < n; v++) {
        int c = color_in[v];
#pragma xapp prob(0.49)
        if (c < 0) {
            int pv = prio[v], win = 1;
            uint64_t used = 0;
            int end = rowptr[v + 1];
#pragma xapp trip(4.8)
            for (int e = rowptr[v]; e < end; e++) {
                int u = col[e], cu = color_in[u];
#pragma xapp prob(0.49)
                if (cu >= 0) {
                    used |= (uint64_t)1 << cu;
                } else if (prio[u] > pv || (prio[u] == pv && u > v)) {
                    win = 0;
                    break;
                }
            }
#pragma xapp prob(0.051)
            if (win) {
                c = 0;
#pragma xapp trip(3.05)
                while ((used >> c) & 1) c++;
            }
        }
        color_out[v] = c;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(107);
    make_undirected(n, n * avg_deg / 2, &rowptr, &col);
    int *prio = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_int(prio, n, 0, 1 << 30);
    int *color_in = (int *)xapp_alloc((size_t)n * sizeof(int)), *color_out = (int *)xapp_alloc((size_t)n * sizeof(int));
    jp_prepare(n, rowptr, col, prio, color_in, color_out);
    XAPP_TIME_REGION(best, coloring_jp_round(n, rowptr, col, prio, color_in, color_out));
    xapp_report(best, xapp_checksum_int(color_out, n));
    free(rowptr); free(col); free(prio); free(color_in); free(color_out);
    return 0;
}
