// Small kernels whose compiler output is stored here as test fixtures (see README.md).
extern "C" __global__ void noshared(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * 2.0f + 1.0f;
}

extern "C" __global__ void dynshared(float *a, int n) {
    extern __shared__ float s[];
    int i = threadIdx.x;
    s[i] = a[i];
    __syncthreads();
    a[i] = s[(i + 1) % blockDim.x];
}

extern "C" __global__ void statshared(float *a, int n) {
    __shared__ float s[100];
    int i = threadIdx.x;
    s[i % 100] = a[i];
    __syncthreads();
    a[i] = s[(i + 1) % 100];
}

// A local array indexed at run time: lives on the stack (local memory).
__device__ __noinline__ float helper(float x) {
    float v[64];
    for (int i = 0; i < 64; i++) v[i] = x * i;
    return v[(int)x & 63];
}

__global__ void mangled(float *a, int n) {
    int i = threadIdx.x;
    a[i] = helper(a[i]);
}

// Software prefetching: the load issued in one iteration is consumed in the next.
extern "C" __global__ void prefetch_sum(const float *a, float *out) {
    float next = a[threadIdx.x];
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 1; i < 64; i++) {  // trips: 63
        float cur = next;
        next = a[i * 1024 + threadIdx.x];
        acc += cur * cur;
    }
    out[threadIdx.x] = acc + next;
}
