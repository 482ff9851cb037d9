/* Static tables that starchart.xapp.dynamic.instrument generates for one program, and the
 * hooks its instrumented IR calls.  The runtime (xapp_rt.c) replays each executed segment
 * of the program's -O1 IR through these tables to compute the dynamic XAPP features online.
 *
 * A *segment* is a run of IR instructions of one basic block that ends at a call leaving
 * the known set (a user function, an external function) or at the block's terminator; the
 * instrumented code calls __xapp_seg once per executed segment, after the addresses of its
 * loads and stores (__xapp_addr), so the runtime sees every dynamic instruction in order.
 */
#ifndef XAPP_RT_H
#define XAPP_RT_H

#include <stdint.h>

/* Instruction classes (thesis Table 3.1 instruction mix). */
enum { XAPP_MEM = 0, XAPP_CTRL = 1, XAPP_INT = 2, XAPP_FP = 3, XAPP_DP = 4, XAPP_NCLASS = 5,
       XAPP_COPY = 6 /* not counted: phi-free value copy (bitcast, freeze, alloca...) */ };
/* Floating-point sub-classes (mulf/divf/sqrtf/expf/sincosf and their double twins). */
enum { XAPP_SUB_NONE = 0, XAPP_SUB_MUL = 1, XAPP_SUB_DIV = 2, XAPP_SUB_SQRT = 3,
       XAPP_SUB_EXP = 4, XAPP_SUB_SIN = 5, XAPP_NSUB = 6 };
/* Memory access kinds. */
enum { XAPP_NOMEM = 0, XAPP_LOAD = 1, XAPP_STORE = 2, XAPP_LOADSTORE = 3 /* atomics */ };
/* How a segment ends. */
enum { XAPP_END_CALL = 0, XAPP_END_BR = 1, XAPP_END_CONDBR = 2, XAPP_END_SWITCH = 3,
       XAPP_END_RET = 4, XAPP_END_OTHER = 5 };

typedef struct {
    uint8_t cls, sub, mem, pad;
    int32_t size;     /* bytes a load/store accesses */
    int32_t memop;    /* static memory-operation id (its windows of 32), or -1 */
    int32_t result;   /* frame slot the instruction defines, or -1 */
    int32_t ops;      /* first entry in __xapp_operands (slot, or -1 for a constant) */
    int32_t n_ops;
    int32_t callee;   /* function id when this calls a function of the program, else -1 */
} xapp_instr_t;

typedef struct {
    int32_t func, block;
    int32_t first, n;      /* instruction range in __xapp_instrs */
    int32_t n_mem;         /* addresses the segment reports */
    int32_t end;           /* XAPP_END_* */
    int32_t after_call;    /* slot of the defined-function call ending the previous segment, or -1 */
    int32_t branch;        /* conditional branch / switch id, or -1 */
    int32_t succ, n_succ;  /* successor block ids in __xapp_succ (switch: default first) */
    int32_t cases;         /* switch case values in __xapp_cases (n_succ - 1 of them) */
} xapp_seg_t;

typedef struct { int32_t phis, n_phis; } xapp_block_t;
typedef struct { int32_t dst, inc, n_inc; } xapp_phi_t;   /* incoming: (pred block, slot) pairs */
typedef struct { int32_t nslots, nparams; } xapp_func_t;

extern const int32_t __xapp_n_funcs, __xapp_n_blocks, __xapp_n_segs, __xapp_n_memops,
    __xapp_n_branches, __xapp_n_succ, __xapp_max_seg_mem;
extern const xapp_func_t __xapp_funcs[];
extern const xapp_block_t __xapp_blocks[];
extern const xapp_seg_t __xapp_segs[];
extern const xapp_instr_t __xapp_instrs[];
extern const int32_t __xapp_operands[];
extern const int32_t __xapp_succ[];
extern const int64_t __xapp_cases[];
extern const xapp_phi_t __xapp_phis[];
extern const int32_t __xapp_phi_inc[];

void __xapp_addr(uint64_t addr);
void __xapp_seg(int32_t seg, int64_t value);
void __xapp_enter(int32_t func);
void __xapp_region_enter(int32_t func);
void __xapp_region_exit(void);

#endif
