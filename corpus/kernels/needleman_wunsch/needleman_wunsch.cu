/* needleman_wunsch, CUDA: blocked wavefront (as in Rodinia's nw): the matrix is cut into TILE x TILE
 * tiles; one launch per anti-diagonal of tiles, one TILE-thread block per tile. A block loads its
 * tile's top row, left column and sequence letters into shared memory, sweeps the tile's 2*TILE-1
 * inner anti-diagonals with a barrier between them, and writes the tile back row by row
 * (coalesced). 2*ceil(n/TILE)-1 launches, each with few, small blocks. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define MATCH 5
#define MISMATCH (-3)
#define GAP 4
#define TILE 32
#define PITCH (TILE + 2)   /* cell (r, c) of anti-diagonal m sits at 33r + m: no bank conflicts */

__global__ void __launch_bounds__(TILE) nw_tiles(int n, int tdiag, int tlo, const int *__restrict__ sa,
                                                 const int *__restrict__ sb, int *__restrict__ score) {
    __shared__ int s[(TILE + 1) * PITCH];
    __shared__ int ca[TILE], cb[TILE];
    long w = n + 1;
    int bi = tlo + blockIdx.x, bj = tdiag - bi;
    int i0 = bi * TILE + 1, j0 = bj * TILE + 1;   /* first interior cell of the tile */
    int t = threadIdx.x;
    /* cells outside the matrix (last, partial tiles) are computed from zeros and never stored;
     * cells inside depend only on cells inside */
    if (t == 0) s[0] = score[(long)(i0 - 1) * w + (j0 - 1)];
    s[t + 1] = j0 + t <= n ? score[(long)(i0 - 1) * w + j0 + t] : 0;            /* top row */
    s[(t + 1) * PITCH] = i0 + t <= n ? score[(long)(i0 + t) * w + j0 - 1] : 0;  /* left column */
    ca[t] = i0 + t <= n ? sa[i0 + t - 1] : 0;
    cb[t] = j0 + t <= n ? sb[j0 + t - 1] : 0;
    __syncthreads();
    for (int m = 0; m < 2 * TILE - 1; m++) {
        int r = t, c = m - t;   /* thread t owns tile row r */
        if (c >= 0 && c < TILE) {
            int diag = s[r * PITCH + c] + (ca[r] == cb[c] ? MATCH : MISMATCH);
            int up = s[r * PITCH + c + 1] - GAP, left = s[(r + 1) * PITCH + c] - GAP;
            s[(r + 1) * PITCH + c + 1] = max(max(diag, up), left);
        }
        __syncthreads();
    }
    for (int r = 0; r < TILE; r++)
        if (i0 + r <= n && j0 + t <= n) score[(long)(i0 + r) * w + j0 + t] = s[(r + 1) * PITCH + t + 1];
}

static void needleman_wunsch(int n, const int *sa, const int *sb, int *score) {
    int tiles = (n + TILE - 1) / TILE;
    for (int d = 0; d <= 2 * (tiles - 1); d++) {   /* tile anti-diagonal bi + bj = d */
        int tlo = d - tiles + 1 > 0 ? d - tiles + 1 : 0, thi = d < tiles - 1 ? d : tiles - 1;
        nw_tiles<<<thi - tlo + 1, TILE>>>(n, d, tlo, sa, sb, score);
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 4096);
    long w = n + 1;
    size_t bytes = (size_t)w * w * sizeof(int);
    int *sa = (int *)xapp_alloc((size_t)n * sizeof(int)), *sb = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *score = (int *)xapp_alloc(bytes);
    xapp_seed(29);
    xapp_fill_int(sa, n, 0, 4);
    xapp_fill_int(sb, n, 0, 4);
    for (long k = 0; k <= n; k++) {
        score[k] = (int)(-GAP * k);
        score[k * w] = (int)(-GAP * k);
    }
    int *dsa, *dsb, *dscore;
    XAPP_CUDA(cudaMalloc(&dsa, n * sizeof(int))); XAPP_CUDA(cudaMalloc(&dsb, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dscore, bytes));
    XAPP_CUDA(cudaMemcpy(dsa, sa, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dsb, sb, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dscore, score, bytes, cudaMemcpyHostToDevice));   /* boundary row and column */
    XAPP_TIME_KERNEL(best, needleman_wunsch(n, dsa, dsb, dscore));
    XAPP_CUDA(cudaMemcpy(score, dscore, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(score, (size_t)w * w));
    cudaFree(dsa); cudaFree(dsb); cudaFree(dscore); free(sa); free(sb); free(score);
    return 0;
}
