/* bplustree_search, CUDA: a warp per query (4 per block), as Rodinia's b+tree gives a block to a
 * query: at each level lane j compares key j of the node (one coalesced 128-byte load), a shuffle
 * reduction counts the keys <= the query, lane 0 picks the child and shares it through shared
 * memory. The tree is balanced, so every warp runs the same number of levels and the barriers are
 * uniform. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define WARPS 4  /* queries per block */

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
__global__ void bplustree_search(long nq, int levels, const int *__restrict__ keys, const int *__restrict__ child,
                                 const int *__restrict__ queries, int *__restrict__ result) {
    __shared__ int next[WARPS];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    long i = (long)blockIdx.x * WARPS + w;
    int q = i < nq ? queries[i] : 0;  /* a warp past the end searches too, for the barriers' sake */
    int node = 0;
    for (int l = 0; l < levels; l++) {
        int count = keys[(long)node * FANOUT + lane] <= q;
        for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
        if (lane == 0) {
            long base = (long)node * FANOUT;
            if (l + 1 < levels) {
                next[w] = child[base + (count > 0 ? count - 1 : 0)];
            } else if (i < nq) {
                result[i] = count > 0 && keys[base + count - 1] == q ? child[base + count - 1] : -1;
            }
        }
        __syncthreads();
        node = next[w];
        __syncthreads();
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
    long nodes = 0, size = (nkeys + FANOUT - 1) / FANOUT;
    for (int l = 0; l < levels; l++) { nodes += size; size = (size + FANOUT - 1) / FANOUT; }
    int *dkeys, *dchild, *dqueries, *dresult;
    XAPP_CUDA(cudaMalloc(&dkeys, nodes * FANOUT * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dchild, nodes * FANOUT * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dqueries, nq * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dresult, nq * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(dkeys, keys, nodes * FANOUT * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dchild, child, nodes * FANOUT * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dqueries, queries, nq * sizeof(int), cudaMemcpyHostToDevice));
    long blocks = (nq + WARPS - 1) / WARPS;
    XAPP_TIME_KERNEL(best, bplustree_search<<<blocks, WARPS * 32>>>(nq, levels, dkeys, dchild, dqueries, dresult));
    XAPP_CUDA(cudaMemcpy(result, dresult, nq * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(result, nq));
    cudaFree(dkeys); cudaFree(dchild); cudaFree(dqueries); cudaFree(dresult);
    free(sorted); free(values); free(queries); free(result); free(keys); free(child);
    return 0;
}
