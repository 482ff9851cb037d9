/* state_machine, CUDA: one thread per program. A block first copies its 128 programs from global
 * memory with coalesced 4-byte loads into shared memory, padded to 36 bytes per program so that
 * threads fetching the same program counter hit different banks; then each thread interprets its
 * program exactly as the C side. The switch over data-dependent opcodes diverges within every
 * warp, and a warp runs until its slowest program halts. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define PROG_LEN 32
#define MAX_STEPS 256
#define BLOCK 128
#define WORDS (PROG_LEN / 4)      /* 4-byte words per program */
#define PADDED (WORDS + 1)        /* words per program in shared memory */

__global__ void __launch_bounds__(BLOCK) state_machine(long n, const unsigned int *__restrict__ prog,
                                                       const int *__restrict__ init, int *__restrict__ out) {
    __shared__ unsigned int progs[BLOCK * PADDED];
    long base = (long)blockIdx.x * BLOCK;
    int count = n - base < BLOCK ? (int)(n - base) : BLOCK;
    for (int w = threadIdx.x; w < count * WORDS; w += BLOCK)
        progs[(w / WORDS) * PADDED + w % WORDS] = prog[base * WORDS + w];
    __syncthreads();
    long i = base + threadIdx.x;
    if (i >= n) return;
    const unsigned char *p = reinterpret_cast<const unsigned char *>(&progs[threadIdx.x * PADDED]);
    uint32_t acc = (uint32_t)init[2 * i], x = (uint32_t)init[2 * i + 1];
    int pc = 0, step;
    for (step = 0; step < MAX_STEPS; step++) {
        uint32_t b = p[pc], op = b & 7u, arg = b >> 3;
        if (op == 7u && (acc & 7u) == 0) break;
        switch (op) {
        case 0: acc += x + arg; break;
        case 1: acc ^= acc >> (1u + (arg & 15u)); break;
        case 2: acc *= 2654435761u; break;
        case 3: x = ((x << 5) | (x >> 27)) + arg; break;
        case 4: if (acc & 1u) pc += (int)arg; break;
        case 5: acc -= x >> 3; break;
        case 6: { uint32_t t = acc; acc = x; x = t; } break;
        default: break;
        }
        pc = (pc + 1) & (PROG_LEN - 1);
    }
    out[2 * i] = (int)(acc ^ x);
    out[2 * i + 1] = step;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    unsigned char *prog = (unsigned char *)xapp_alloc((size_t)n * PROG_LEN);
    int *init = (int *)xapp_alloc((size_t)2 * n * sizeof(int)), *out = (int *)xapp_alloc((size_t)2 * n * sizeof(int));
    xapp_seed(603);
    xapp_fill_uchar(prog, (size_t)n * PROG_LEN, 0, 255);
    xapp_fill_int(init, 2 * (size_t)n, 0, 2147483647);
    unsigned int *dprog;
    int *dinit, *dout;
    XAPP_CUDA(cudaMalloc(&dprog, (size_t)n * PROG_LEN));
    XAPP_CUDA(cudaMalloc(&dinit, (size_t)2 * n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dout, (size_t)2 * n * sizeof(int)));
    /* the bytes keep their order: byte k of a program is byte k % 4 of its word k / 4 (little-endian) */
    XAPP_CUDA(cudaMemcpy(dprog, prog, (size_t)n * PROG_LEN, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dinit, init, (size_t)2 * n * sizeof(int), cudaMemcpyHostToDevice));
    long blocks = (n + BLOCK - 1) / BLOCK;
    XAPP_TIME_KERNEL(best, state_machine<<<blocks, BLOCK>>>(n, dprog, dinit, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, (size_t)2 * n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, 2 * (size_t)n));
    cudaFree(dprog); cudaFree(dinit); cudaFree(dout); free(prog); free(init); free(out);
    return 0;
}
