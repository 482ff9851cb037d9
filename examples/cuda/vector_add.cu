// c = a + b, each thread adding work_per_thread elements: consecutive ones (consecutive=1) or one
// block's width apart (consecutive=0, so that a warp's loads are coalesced). starchart defines
// block_size_x, work_per_thread and consecutive for each configuration (-D<PARAM>=<value>).
extern "C" __global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int block_start = blockIdx.x * block_size_x * work_per_thread;
#pragma unroll
    for (int k = 0; k < work_per_thread; k++) {
#if consecutive
        int i = block_start + threadIdx.x * work_per_thread + k;
#else
        int i = block_start + k * block_size_x + threadIdx.x;
#endif
        if (i < n) {
            c[i] = a[i] + b[i];
        }
    }
}
