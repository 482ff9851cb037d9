/* bfs_level: level-synchronous top-down breadth-first search from vertex 0 of a road-like graph
 * (a W x H grid whose edges are each present with probability 4/5): the frontier of one level is
 * expanded into the queue of the next (category: graph). The host loop over levels is serial and
 * long (a grid has a diameter of about W + H), the band is one level's frontier: a few hundred
 * vertices, each with at most 4 neighbours, so a GPU port pays a launch and a frontier-size read
 * back for very little work per level. */
#include "../../harness/xapp_harness.h"

/* Deterministic road-like grid graph in CSR form (shared by copy with the .cu side): vertex
 * y*w + x links to its right and lower neighbours each with probability 4/5 (symmetric edges);
 * neighbour lists are in the order up, left, right, down. */
static void make_grid(long w, long h, int **rowptr_out, int **col_out) {
    long n = w * h;
    if ((double)n * 4.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 4*w*h must fit in an int (got w=%ld, h=%ld)\n", w, h);
        exit(2);
    }
    unsigned char *right = (unsigned char *)xapp_alloc((size_t)n), *down = (unsigned char *)xapp_alloc((size_t)n);
    for (long v = 0; v < n; v++) {
        long x = v % w, y = v / w;
        right[v] = x + 1 < w && xapp_next() % 5 != 0;
        down[v] = y + 1 < h && xapp_next() % 5 != 0;
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    int *col = (int *)xapp_alloc((size_t)n * 4 * sizeof(int));
    int e = 0;
    for (long v = 0; v < n; v++) {
        rowptr[v] = e;
        long x = v % w;
        if (v >= w && down[v - w]) col[e++] = (int)(v - w);
        if (x > 0 && right[v - 1]) col[e++] = (int)(v - 1);
        if (right[v]) col[e++] = (int)(v + 1);
        if (down[v]) col[e++] = (int)(v + w);
    }
    rowptr[n] = e;
    free(right); free(down);
    *rowptr_out = rowptr;
    *col_out = col;
}

/* level[v] = BFS distance from src (-1 when unreachable); queue holds the vertices in visiting
 * order. Returns the number of levels expanded. */
int bfs_level(long n, const int *restrict rowptr, const int *restrict col, int src, int *restrict level,
              int *restrict queue) {
    for (long v = 0; v < n; v++) level[v] = -1;
    level[src] = 0;
    queue[0] = src;
    long lo = 0, hi = 1, tail = 1;
    int depth = 0;
#pragma xapp trip(3071)
    for (; lo < hi; depth++) {
#pragma xapp parallel trip(767)
        for (long i = lo; i < hi; i++) {
            int u = queue[i];
            int end = rowptr[u + 1];
#pragma xapp trip(3.2)
            for (int e = rowptr[u]; e < end; e++) {
                int v = col[e];
#pragma xapp prob(0.31)
                if (level[v] < 0) {
                    level[v] = depth + 1;
                    queue[tail++] = v;
                }
            }
        }
        lo = hi;
        hi = tail;
    }
    return depth;
}

int main(int argc, char **argv) {
    long w = xapp_arg(argc, argv, 1, 1536), h = xapp_arg(argc, argv, 2, 1536);
    long n = w * h;
    int *rowptr, *col;
    xapp_seed(101);
    make_grid(w, h, &rowptr, &col);
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int)), *queue = (int *)xapp_alloc((size_t)n * sizeof(int));
    XAPP_TIME_REGION(best, bfs_level(n, rowptr, col, 0, level, queue));
    xapp_report(best, xapp_checksum_int(level, n));
    free(rowptr); free(col); free(level); free(queue);
    return 0;
}
