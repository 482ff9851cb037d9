// The distance kernel of Rodinia's streamcluster (pgain): for a candidate centre, each point's
// weighted distance to it, whether the point would switch to it, and what that saves.
//
// Tuning parameters (Table I; macros):
//   block_size_x  threads per block ("block")
//   ppt           points per thread (a block's threads take consecutive points, ppt times)
//   pa_point      1: point data in parallel arrays (coordinates dimension-major); 0: an array of
//                 point structs {weight, cost, coordinates[DIM]}
//   use_smem      1: stage the centre's coordinates in shared memory; 0: read them from global memory
// Both layouts are passed on every launch; the macros choose which the kernel reads.

#define DIM 64             // coordinates per point
#define STRIDE (DIM + 2)   // floats per point struct

extern "C" __global__ void streamcluster(const float* points, const float* coordinates, const float* weights,
                                         const float* costs, const float* centre, float* gain, int* switched,
                                         int n) {
#if use_smem
    __shared__ float s_centre[DIM];
    for (int d = threadIdx.x; d < DIM; d += block_size_x) s_centre[d] = centre[d];
    __syncthreads();
#define CENTRE(d) s_centre[d]
#else
#define CENTRE(d) centre[d]
#endif
    for (int i = 0; i < ppt; i++) {
        const int p = (blockIdx.x * ppt + i) * block_size_x + threadIdx.x;
        if (p >= n) return;  // no barrier follows
        float distance = 0.0f;
        for (int d = 0; d < DIM; d++) {
#if pa_point
            const float difference = coordinates[d * n + p] - CENTRE(d);
#else
            const float difference = points[p * STRIDE + 2 + d] - CENTRE(d);
#endif
            distance += difference * difference;
        }
#if pa_point
        const float weight = weights[p], cost = costs[p];
#else
        const float weight = points[p * STRIDE], cost = points[p * STRIDE + 1];
#endif
        const float new_cost = distance * weight;
        const int better = new_cost < cost;
        switched[p] = better;
        gain[p] = better ? cost - new_cost : 0.0f;
    }
}
