/* bfs_step: one bottom-up ("pull") step of breadth-first search on a random directed graph:
 * every unvisited vertex scans its in-neighbours until it finds one on the current frontier
 * (category: irregular: data-dependent branch, early-exit inner loop, random gathers). */
#include "../../harness/xapp_harness.h"

/* Deterministic random graph in CSR form (shared by copy with the .cu side): vertex v has a number
 * of in-neighbours uniform in [0, 2*avg_deg], each uniform over [0, n). */
static void make_csr(long n, int avg_deg, int **rowptr_out, int **col_out) {
    if ((double)n * (2.0 * avg_deg + 1.0) > 2147483647.0) {
        fprintf(stderr, "xapp: n * (2*avg_deg+1) must fit in an int (got n=%ld, avg_deg=%d)\n", n, avg_deg);
        exit(2);
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    rowptr[0] = 0;
    for (long i = 0; i < n; i++) rowptr[i + 1] = rowptr[i] + (int)(xapp_next() % (uint64_t)(2 * avg_deg + 1));
    int *col = (int *)xapp_alloc((size_t)rowptr[n] * sizeof(int));
    for (long e = 0; e < rowptr[n]; e++) col[e] = (int)(xapp_next() % (uint64_t)n);
    *rowptr_out = rowptr;
    *col_out = col;
}

/* next[v] = level[v] if visited, cur+1 if an in-neighbour is on frontier `cur`, else -1. */
void bfs_step(long n, const int *restrict rowptr, const int *restrict col, const int *restrict level, int cur,
              int *restrict next) {
#pragma xapp parallel trip(4194304)
    for (long v = 0; v < n; v++) {
        int lv = level[v];
#pragma xapp prob(0.7)
        if (lv < 0) {
#pragma xapp trip(3)
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
#pragma xapp prob(0.28)
                if (level[col[e]] == cur) {
                    lv = cur + 1;
                    break;
                }
            }
        }
        next[v] = lv;
    }
}

/* The same step for the untimed set-up, kept apart from the marked region so that an instrumented
 * run (dynamic XAPP) measures only the timed step, as on the CUDA side (host_bfs_step there too). */
static void host_bfs_step(long n, const int *rowptr, const int *col, const int *level, int cur, int *next) {
    for (long v = 0; v < n; v++) {
        int lv = level[v];
        if (lv < 0) {
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
                if (level[col[e]] == cur) {
                    lv = cur + 1;
                    break;
                }
            }
        }
        next[v] = lv;
    }
}

/* Untimed set-up (same on both sides): BFS from vertex 0 until the frontier holds at least n/16
 * vertices (or stops growing); returns that frontier's level, levels of deeper vertices are -1. */
static int bfs_prepare(long n, const int *rowptr, const int *col, int *level, int *tmp) {
    for (long v = 0; v < n; v++) level[v] = -1;
    level[0] = 0;
    int cur = 0;
    long frontier = 1;
    while (frontier < n / 16) {
        host_bfs_step(n, rowptr, col, level, cur, tmp);
        long grown = 0;
        for (long v = 0; v < n; v++) grown += tmp[v] == cur + 1;
        if (grown == 0) break;
        memcpy(level, tmp, (size_t)n * sizeof(int));
        cur++;
        frontier = grown;
    }
    return cur;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(12);
    make_csr(n, avg_deg, &rowptr, &col);
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int)), *next = (int *)xapp_alloc((size_t)n * sizeof(int));
    int cur = bfs_prepare(n, rowptr, col, level, next);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        bfs_step(n, rowptr, col, level, cur, next);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(next, n));
    free(rowptr); free(col); free(level); free(next);
    return 0;
}
