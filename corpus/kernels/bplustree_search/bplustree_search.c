/* bplustree_search: a batch of independent key lookups in a B+ tree of fanout 32 laid out in arrays
 * (category: irregular: each lookup descends 5 levels with dependent loads of 128-byte nodes; inside
 * a node, the child is found by counting the keys <= the query, a branch-free loop of 32 compares).
 * The result is the key's value, or -1 when the key is absent. */
#include "../../harness/xapp_harness.h"

#define FANOUT 32    /* keys (and children) per node */
#define NO_KEY 0x7fffffff  /* padding: larger than every key and query */

/* Deterministic B+ tree in arrays (shared by copy with the other side), built bottom-up from sorted
 * unique keys: leaves hold FANOUT keys and their values (child[] doubles as the value array); an
 * inner node holds, for each child, the child's smallest key and its node index; nodes are stored
 * level by level from the root (node 0). Unused slots hold NO_KEY. Returns the number of levels. */
static int build_tree(long nkeys, const int *sorted, const int *values, int **keys_out, int **child_out) {
    long size[32];
    int levels = 0;
    size[levels++] = (nkeys + FANOUT - 1) / FANOUT;
    while (size[levels - 1] > 1) {
        size[levels] = (size[levels - 1] + FANOUT - 1) / FANOUT;
        levels++;
    }
    long offset[32], nodes = 0;
    for (int l = levels - 1; l >= 0; l--) { offset[l] = nodes; nodes += size[l]; }
    int *keys = (int *)xapp_alloc((size_t)nodes * FANOUT * sizeof(int));
    int *child = (int *)xapp_alloc((size_t)nodes * FANOUT * sizeof(int));
    for (long i = 0; i < size[0]; i++)
        for (int j = 0; j < FANOUT; j++) {
            long k = i * FANOUT + j, slot = (offset[0] + i) * FANOUT + j;
            keys[slot] = k < nkeys ? sorted[k] : NO_KEY;
            child[slot] = k < nkeys ? values[k] : -1;
        }
    for (int l = 1; l < levels; l++)
        for (long i = 0; i < size[l]; i++)
            for (int j = 0; j < FANOUT; j++) {
                long c = i * FANOUT + j, slot = (offset[l] + i) * FANOUT + j;
                keys[slot] = c < size[l - 1] ? keys[(offset[l - 1] + c) * FANOUT] : NO_KEY;
                child[slot] = c < size[l - 1] ? (int)(offset[l - 1] + c) : 0;
            }
    *keys_out = keys;
    *child_out = child;
    return levels;
}
void bplustree_search(long nq, int levels, const int *restrict keys, const int *restrict child,
                      const int *restrict queries, int *restrict result) {
#pragma xapp parallel trip(524288)
    for (long i = 0; i < nq; i++) {
        int q = queries[i];
        long node = 0;
#pragma xapp trip(4)
        for (int l = 1; l < levels; l++) {
            const int *restrict k = keys + node * FANOUT;
            int count = 0;
            for (int j = 0; j < FANOUT; j++) count += k[j] <= q;
            node = child[node * FANOUT + (count > 0 ? count - 1 : 0)];
        }
        const int *restrict k = keys + node * FANOUT;
        int count = 0;
        for (int j = 0; j < FANOUT; j++) count += k[j] <= q;
        result[i] = count > 0 && k[count - 1] == q ? child[node * FANOUT + count - 1] : -1;
    }
}

int main(int argc, char **argv) {
    long nkeys = xapp_arg(argc, argv, 1, 1L << 22);
    long nq = xapp_arg(argc, argv, 2, 1L << 19);
    if (nkeys > (1L << 28)) { fprintf(stderr, "xapp: at most 2^28 keys\n"); exit(2); }
    int *sorted = (int *)xapp_alloc((size_t)nkeys * sizeof(int)), *values = (int *)xapp_alloc((size_t)nkeys * sizeof(int));
    int *queries = (int *)xapp_alloc((size_t)nq * sizeof(int)), *result = (int *)xapp_alloc((size_t)nq * sizeof(int));
    xapp_seed(113);
    for (long i = 0; i < nkeys; i++) sorted[i] = (int)(4 * i + (long)(xapp_next() % 4));  /* sorted, unique */
    xapp_fill_int(values, nkeys, 0, 1 << 24);
    xapp_fill_int(queries, nq, 0, (int)(4 * nkeys));  /* about one query in four hits a key */
    int *keys, *child;
    int levels = build_tree(nkeys, sorted, values, &keys, &child);
    XAPP_TIME_REGION(best, bplustree_search(nq, levels, keys, child, queries, result));
    xapp_report(best, xapp_checksum_int(result, nq));
    free(sorted); free(values); free(queries); free(result); free(keys); free(child);
    return 0;
}
