/* prefix_scan, CUDA: the work-efficient Blelloch scan (GPU Gems 3, ch. 39). A 512-thread block
 * scans 1024 elements in shared memory (up-sweep builds the reduction tree, the root is cleared,
 * down-sweep distributes the prefixes; indices padded by one word per 32 to avoid bank
 * conflicts) and writes its total. The totals are scanned the same way, recursively (2^26
 * elements: 65536 blocks, then 64, then 1), and a last launch per level adds each block's
 * offset: 5 launches. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 512
#define ELEMS (2 * THREADS)
#define PAD(i) ((i) >> 5)
#define MAX_LEVELS 8

/* Exclusive scan of each block of ELEMS elements of in (n of them) into out; the block's total
 * goes to sums[block] unless sums is null. */
__global__ void scan_blocks(long n, const int *__restrict__ in, int *__restrict__ out, int *__restrict__ sums) {
    __shared__ int s[ELEMS + ELEMS / 32];
    long base = (long)blockIdx.x * ELEMS;
    int ai = threadIdx.x, bi = threadIdx.x + THREADS;
    s[ai + PAD(ai)] = base + ai < n ? in[base + ai] : 0;
    s[bi + PAD(bi)] = base + bi < n ? in[base + bi] : 0;
    int offset = 1;
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {   /* up-sweep */
        __syncthreads();
        if (threadIdx.x < d) {
            int x = offset * (2 * threadIdx.x + 1) - 1, y = offset * (2 * threadIdx.x + 2) - 1;
            s[y + PAD(y)] += s[x + PAD(x)];
        }
        offset <<= 1;
    }
    if (threadIdx.x == 0) {
        int last = ELEMS - 1 + PAD(ELEMS - 1);
        if (sums) sums[blockIdx.x] = s[last];
        s[last] = 0;
    }
    for (int d = 1; d < ELEMS; d <<= 1) {        /* down-sweep */
        offset >>= 1;
        __syncthreads();
        if (threadIdx.x < d) {
            int x = offset * (2 * threadIdx.x + 1) - 1, y = offset * (2 * threadIdx.x + 2) - 1;
            int t = s[x + PAD(x)];
            s[x + PAD(x)] = s[y + PAD(y)];
            s[y + PAD(y)] += t;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = s[ai + PAD(ai)];
    if (base + bi < n) out[base + bi] = s[bi + PAD(bi)];
}

/* out[i] += offsets[block of i]; the first block's offset is 0. */
__global__ void add_offsets(long n, int *__restrict__ out, const int *__restrict__ offsets) {
    long base = (long)blockIdx.x * ELEMS;
    int c = offsets[blockIdx.x];
    for (int i = threadIdx.x; i < ELEMS; i += THREADS)
        if (base + i < n) out[base + i] += c;
}

/* Block totals and their scans, one pair of buffers per level of the recursion. */
static int *level_sums[MAX_LEVELS], *level_offsets[MAX_LEVELS];

static void scan(long n, const int *in, int *out, int level) {
    long blocks = (n + ELEMS - 1) / ELEMS;
    scan_blocks<<<blocks, THREADS>>>(n, in, out, blocks > 1 ? level_sums[level] : NULL);
    if (blocks > 1) {
        scan(blocks, level_sums[level], level_offsets[level], level + 1);
        add_offsets<<<blocks, THREADS>>>(n, out, level_offsets[level]);
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 26);
    size_t bytes = n * sizeof(int);
    int *in = (int *)xapp_alloc(bytes), *out = (int *)xapp_alloc(bytes);
    xapp_seed(514);
    xapp_fill_int(in, n, 0, 10);
    int *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&dout, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    int level = 0;
    for (long m = (n + ELEMS - 1) / ELEMS; m > 1; m = (m + ELEMS - 1) / ELEMS, level++) {
        if (level == MAX_LEVELS) { fprintf(stderr, "prefix_scan: too many elements\n"); return 2; }
        XAPP_CUDA(cudaMalloc(&level_sums[level], m * sizeof(int)));
        XAPP_CUDA(cudaMalloc(&level_offsets[level], m * sizeof(int)));
    }
    XAPP_TIME_KERNEL(best, scan(n, din, dout, 0));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, n));
    for (int l = 0; l < level; l++) { cudaFree(level_sums[l]); cudaFree(level_offsets[l]); }
    cudaFree(din); cudaFree(dout); free(in); free(out);
    return 0;
}
