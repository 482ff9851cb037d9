/* cc_pointer_jump: connected components by min-label hooking and pointer jumping (Shiloach-Vishkin
 * style) on a sparse undirected random graph (category: graph). Each round hooks, for every edge
 * whose endpoints have different parents, the larger parent under the smaller one, then compresses
 * every parent chain to its root; rounds repeat until a hooking pass changes nothing. Parents only
 * ever point to smaller ids, so each component ends labelled with its smallest vertex, whatever
 * the order of the updates. The band is the hooking pass; the host loop runs the rounds. */
#include "../../harness/xapp_harness.h"

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges between uniform random endpoints, stored in both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)(xapp_next() % (uint64_t)n);
        b[e] = (int)(xapp_next() % (uint64_t)n);
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
/* parent[v] = the smallest vertex of v's component; returns the rounds run. */
int cc_pointer_jump(long n, const int *restrict rowptr, const int *restrict col, int *restrict parent) {
    for (long v = 0; v < n; v++) parent[v] = (int)v;
    int rounds = 0, changed = 1;
#pragma xapp trip(4)
    for (; changed; rounds++) {
        changed = 0;
#pragma xapp parallel trip(2097152)
        for (long u = 0; u < n; u++) {
            int end = rowptr[u + 1];
#pragma xapp trip(2)
            for (int e = rowptr[u]; e < end; e++) {
                int pu = parent[u], pv = parent[col[e]];
#pragma xapp prob(0.27)
                if (pu != pv) {
                    int hi = pu > pv ? pu : pv, lo = pu < pv ? pu : pv;
                    if (lo < parent[hi]) {
                        parent[hi] = lo;
                        changed = 1;
                    }
                }
            }
        }
        /* pointer jumping: in ascending order parent[v] <= v has already been compressed to its
         * root, so one jump per vertex makes every tree a star */
        for (long v = 0; v < n; v++) parent[v] = parent[parent[v]];
    }
    return rounds;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long m = xapp_arg(argc, argv, 2, 1L << 21);
    int *rowptr, *col;
    xapp_seed(105);
    make_undirected(n, m, &rowptr, &col);
    int *parent = (int *)xapp_alloc((size_t)n * sizeof(int));
    XAPP_TIME_REGION(best, cc_pointer_jump(n, rowptr, col, parent));
    xapp_report(best, xapp_checksum_int(parent, n));
    free(rowptr); free(col); free(parent);
    return 0;
}
