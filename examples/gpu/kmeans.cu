// Rodinia kmeans' "swap" kernel (invert_mapping): points × features (row-major) to features × points,
// the kernel of the Starchart paper's Fig. 1a and its power/performance case study (§VII-D).
//
// A block holds ppb points; tpp threads cooperate on each point's features.
//
// Tuning parameters (Table I; macros):
//   ppb     points per block (the block's y dimension)
//   tpp     threads per point (the block's x dimension)
//   consec  1: consecutive threads take consecutive features (feature = lane, lane + tpp, ...);
//           0: each thread takes a consecutive run of features
//   use_l1  Hopper adaptation of Table II's use-l1 (a compiler flag on Fermi): 1 loads through
//           the L1 cache (ld.global.ca), 0 caches in L2 only (ld.global.cg)

#if use_l1
#define LOAD(p) __ldca(p)
#else
#define LOAD(p) __ldcg(p)
#endif

extern "C" __global__ void kmeans_swap(const float* input, float* output, int npoints, int nfeatures) {
    const int point = blockIdx.x * ppb + threadIdx.y;  // blocks along x: a grid's y side stops at 65,535
    if (point >= npoints) return;
    const int lane = threadIdx.x;
#if consec
    for (int f = lane; f < nfeatures; f += tpp) {
#else
    const int chunk = (nfeatures + tpp - 1) / tpp;
    const int end = min((lane + 1) * chunk, nfeatures);
    for (int f = lane * chunk; f < end; f++) {
#endif
        output[f * npoints + point] = LOAD(&input[point * nfeatures + f]);
    }
}
