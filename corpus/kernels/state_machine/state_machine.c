/* state_machine: every element runs its own little byte-code program (32 one-byte instructions,
 * 8 opcodes, a 5-bit operand) on two 32-bit registers, until a halt condition holds or 256 steps
 * have run. The opcode sequence, the conditional jumps and the halting step all depend on the data,
 * so neighbouring elements take different switch cases and stop at different times
 * (category: gpu-hostile, through divergence: a GPU warp serialises the cases and waits for its
 * slowest lane). */
#include "../../harness/xapp_harness.h"

#define PROG_LEN 32   /* bytes per program; the program counter wraps around */
#define MAX_STEPS 256

/* One instruction byte: opcode = b & 7, operand = b >> 3 (0..31). out[2i] = acc ^ x at the halt,
 * out[2i+1] = the steps run. */
void state_machine(long n, const unsigned char *restrict prog, const int *restrict init, int *restrict out) {
#pragma xapp parallel trip(262144)
    for (long i = 0; i < n; i++) {
        const unsigned char *restrict p = prog + i * PROG_LEN;
        uint32_t acc = (uint32_t)init[2 * i], x = (uint32_t)init[2 * i + 1];
        int pc = 0, step;
#pragma xapp trip(112)
        for (step = 0; step < MAX_STEPS; step++) {
            uint32_t b = p[pc], op = b & 7u, arg = b >> 3;
#pragma xapp prob(0.0066)
            if (op == 7u && (acc & 7u) == 0) break;                 /* halt */
            switch (op) {
            case 0: acc += x + arg; break;                          /* add */
            case 1: acc ^= acc >> (1u + (arg & 15u)); break;        /* xor-shift */
            case 2: acc *= 2654435761u; break;                      /* multiply */
            case 3: x = ((x << 5) | (x >> 27)) + arg; break;         /* rotate the second register */
            case 4: if (acc & 1u) pc += (int)arg; break;            /* jump forward when acc is odd */
            case 5: acc -= x >> 3; break;                           /* subtract */
            case 6: { uint32_t t = acc; acc = x; x = t; } break;    /* swap */
            default: break;                                          /* 7: halt test only */
            }
            pc = (pc + 1) & (PROG_LEN - 1);
        }
        out[2 * i] = (int)(acc ^ x);
        out[2 * i + 1] = step;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    unsigned char *prog = (unsigned char *)xapp_alloc((size_t)n * PROG_LEN);
    int *init = (int *)xapp_alloc((size_t)2 * n * sizeof(int)), *out = (int *)xapp_alloc((size_t)2 * n * sizeof(int));
    xapp_seed(603);
    xapp_fill_uchar(prog, (size_t)n * PROG_LEN, 0, 255);
    xapp_fill_int(init, 2 * (size_t)n, 0, 2147483647);
    XAPP_TIME_REGION(best, state_machine(n, prog, init, out));
    xapp_report(best, xapp_checksum_int(out, 2 * (size_t)n));
    free(prog); free(init); free(out);
    return 0;
}
