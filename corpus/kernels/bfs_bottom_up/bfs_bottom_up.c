/* bfs_bottom_up: one bottom-up step of direction-optimising BFS (Beamer et al.) on an
 * undirected power-law-like graph, the step that discovers the widest level: every unvisited
 * vertex scans its neighbours until it finds one in the frontier bitmap, records it as its parent
 * and sets its own bit in the next frontier's bitmap (category: graph: early-exit scans of varying
 * length, random bitmap probes that stay in cache). */
#include "../../harness/xapp_harness.h"

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges, each between a skewed and a uniform endpoint, stored in both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)skewed_vertex(n);
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
/* Untimed set-up (same on both sides): a queue-based BFS from vertex 0 gives each vertex a level
 * and a parent; the search is then cut just before its widest level W: frontier = the vertices at
 * level L = W - 1, parent_in = the parents of the vertices at levels <= L, -1 elsewhere, so this
 * step is the one that discovers the most vertices. */
static void bfs_prepare(long n, const int *rowptr, const int *col, uint32_t *frontier, int *parent_in) {
    int *level = (int *)xapp_alloc((size_t)n * sizeof(int)), *parent = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *queue = (int *)xapp_alloc((size_t)n * sizeof(int));
    for (long v = 0; v < n; v++) { level[v] = -1; parent[v] = -1; }
    level[0] = 0; parent[0] = 0; queue[0] = 0;
    long head = 0, tail = 1;
    while (head < tail) {
        int u = queue[head++];
        for (int e = rowptr[u]; e < rowptr[u + 1]; e++) {
            int v = col[e];
            if (level[v] < 0) { level[v] = level[u] + 1; parent[v] = u; queue[tail++] = v; }
        }
    }
    long count[64] = {0};
    for (long v = 0; v < n; v++) if (level[v] >= 0 && level[v] < 64) count[level[v]]++;
    int widest = 0;
    for (int l = 1; l < 64; l++) if (count[l] > count[widest]) widest = l;
    int at = widest > 0 ? widest - 1 : 0;  /* the frontier's level L */
    memset(frontier, 0, (size_t)((n + 31) / 32) * sizeof(uint32_t));
    for (long v = 0; v < n; v++) {
        int visited = level[v] >= 0 && level[v] <= at;
        parent_in[v] = visited ? parent[v] : -1;
        if (level[v] == at) frontier[v >> 5] |= 1u << (v & 31);
    }
    free(level); free(parent); free(queue);
}

/* parent_out[v] = parent_in[v] for visited vertices, else the first neighbour in the frontier
 * (or -1); next = the bitmap of the vertices found in this step. */
void bfs_bottom_up(long n, const int *restrict rowptr, const int *restrict col, const uint32_t *restrict frontier,
                   const int *restrict parent_in, int *restrict parent_out, uint32_t *restrict next) {
    memset(next, 0, (size_t)((n + 31) / 32) * sizeof(uint32_t));
#pragma xapp parallel trip(2097152)
    for (long v = 0; v < n; v++) {
        int p = parent_in[v];
#pragma xapp prob(0.76)
        if (p < 0) {
            int end = rowptr[v + 1];
#pragma xapp trip(2.8)
            for (int e = rowptr[v]; e < end; e++) {
                int u = col[e];
#pragma xapp prob(0.35)
                if ((frontier[u >> 5] >> (u & 31)) & 1u) {
                    p = u;
                    next[v >> 5] |= 1u << (v & 31);
                    break;
                }
            }
        }
        parent_out[v] = p;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(102);
    make_undirected(n, n * avg_deg / 2, &rowptr, &col);
    long words = (n + 31) / 32;
    uint32_t *frontier = (uint32_t *)xapp_alloc((size_t)words * sizeof(uint32_t));
    uint32_t *next = (uint32_t *)xapp_alloc((size_t)words * sizeof(uint32_t));
    int *parent_in = (int *)xapp_alloc((size_t)n * sizeof(int)), *parent_out = (int *)xapp_alloc((size_t)n * sizeof(int));
    bfs_prepare(n, rowptr, col, frontier, parent_in);
    XAPP_TIME_REGION(best, bfs_bottom_up(n, rowptr, col, frontier, parent_in, parent_out, next));
    xapp_report(best, xapp_checksum_int(parent_out, n) + xapp_checksum_int((const int *)next, words));
    free(rowptr); free(col); free(frontier); free(next); free(parent_in); free(parent_out);
    return 0;
}
