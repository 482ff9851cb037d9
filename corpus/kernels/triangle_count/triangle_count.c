/* triangle_count: triangles per vertex by sorted-list intersection on a power-law-like undirected
 * graph (category: graph). Edges are oriented from the lower- to the higher-ranked endpoint (degree
 * order), so each triangle is counted once, at its lowest-ranked vertex u: for every forward
 * neighbour v of u, the forward lists of u and v are merged (branch-free merge). */
#include "../../harness/xapp_harness.h"

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic simple undirected graph, oriented for triangle counting (shared by copy with the
 * other side): m random edges, half of them local (between a uniform vertex and one of the next 64
 * on a ring, which makes triangles), half between a skewed and a uniform endpoint (hubs and
 * shortcuts, a small-world graph with a power-law-like tail); self-loops and duplicates
 * dropped; each edge kept once, from its lower-ranked to its higher-ranked endpoint (rank: degree,
 * then id), so hubs have short lists; every list sorted by id. Returns the forward CSR. */
static void make_oriented(long n, long m, int **fptr_out, int **fcol_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        if (xapp_next() & 1) {
            a[e] = (int)(xapp_next() % (uint64_t)n);
            b[e] = (int)((a[e] + 1 + (long)(xapp_next() % 64)) % n);
        } else {
            a[e] = (int)skewed_vertex(n);
            b[e] = (int)(xapp_next() % (uint64_t)n);
        }
    }
    /* symmetric CSR in generation order */
    int *ptr = (int *)calloc((size_t)n + 1, sizeof(int)), *adj = (int *)xapp_alloc((size_t)(2 * m) * sizeof(int));
    for (long e = 0; e < m; e++) { ptr[a[e] + 1]++; ptr[b[e] + 1]++; }
    for (long v = 0; v < n; v++) ptr[v + 1] += ptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, ptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) { adj[fill[a[e]]++] = b[e]; adj[fill[b[e]]++] = a[e]; }
    /* transposing a symmetric graph by ascending source sorts every list by id */
    int *sorted = (int *)xapp_alloc((size_t)(2 * m) * sizeof(int));
    memcpy(fill, ptr, (size_t)n * sizeof(int));
    for (long u = 0; u < n; u++)
        for (int e = ptr[u]; e < ptr[u + 1]; e++) sorted[fill[adj[e]]++] = (int)u;
    /* drop self-loops and duplicates: ptr becomes the simple graph's CSR, compacted in place */
    int out = 0;
    for (long v = 0; v < n; v++) {
        int begin = ptr[v], end = ptr[v + 1];
        ptr[v] = out;
        for (int e = begin; e < end; e++)
            if (sorted[e] != v && (e == begin || sorted[e] != sorted[e - 1])) sorted[out++] = sorted[e];
    }
    ptr[n] = out;
    /* orient from lower to higher rank */
    int *fptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int)), *fcol = (int *)xapp_alloc((size_t)(out / 2 + 1) * sizeof(int));
    int k = 0;
    for (long u = 0; u < n; u++) {
        fptr[u] = k;
        int du = ptr[u + 1] - ptr[u];
        for (int e = ptr[u]; e < ptr[u + 1]; e++) {
            int v = sorted[e], dv = ptr[v + 1] - ptr[v];
            if (dv > du || (dv == du && v > u)) fcol[k++] = v;
        }
    }
    fptr[n] = k;
    free(a); free(b); free(ptr); free(adj); free(fill); free(sorted);
    *fptr_out = fptr;
    *fcol_out = fcol;
}
void triangle_count(long n, const int *restrict fptr, const int *restrict fcol, int *restrict count) {
#pragma xapp parallel trip(262144)
    for (long u = 0; u < n; u++) {
        int c = 0, ub = fptr[u], ue = fptr[u + 1];
#pragma xapp trip(7.9)
        for (int i = ub; i < ue; i++) {
            int v = fcol[i];
            int a = ub, b = fptr[v], be = fptr[v + 1];
#pragma xapp trip(10.7)
            while (a < ue && b < be) {
                int x = fcol[a], y = fcol[b];
                c += x == y;
                a += x <= y;
                b += y <= x;
            }
        }
        count[u] = c;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int *fptr, *fcol;
    xapp_seed(106);
    make_oriented(n, n * avg_deg / 2, &fptr, &fcol);
    int *count = (int *)xapp_alloc((size_t)n * sizeof(int));
    XAPP_TIME_REGION(best, triangle_count(n, fptr, fcol, count));
    xapp_report(best, xapp_checksum_int(count, n));
    free(fptr); free(fcol); free(count);
    return 0;
}
