// CLBlast's Xgemm (release 1.0.0, the kernel of ../shared/datasets/gemm/RTX_3090.json.gz) as one CUDA
// translation unit for NVRTC, so that `starchart carve` can compile every configuration of that cache.
//
// Derived for starchart (2026-11-29) from CLBlast, Copyright Cedric Nugteren and contributors, Apache-2.0
// (licenses/CNugteren+CLBlast.LICENSE). The cache was measured with NVIDIA's OpenCL compiler; this is the same
// kernel text compiled as CUDA, so its register counts need not be those of the measured binaries.
// Changes (see README.md in this folder):
//   - USE_INLINE_KEYWORD, so the helper functions become __device__ functions (INLINE_FUNC);
//   - CLBlast 1.2.0's opencl_to_cuda.h first (__kernel, __local, barrier, get_local_id ... as CUDA);
//   - in xgemm_part1/3.opencl the eight `__local realM*` / `__local realN*` parameters read `LOCAL_PTR`
//     (CLBlast 1.0.0 predates that macro; NVRTC rejects __shared__ on a parameter).
#define USE_INLINE_KEYWORD 1
#include "opencl_to_cuda.h"
#include "common.opencl"
#include "xgemm_part1.opencl"
#include "xgemm_part2.opencl"
#include "xgemm_part3.opencl"
