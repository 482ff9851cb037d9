// Oracle for tests/test_occupancy.py: NVIDIA's own occupancy calculator (cuda_occupancy.h,
// shipped header-only with the CUDA toolkit) run on host, used as a black box.
// Build:  g++ -O1 -std=c++14 -I$CUDA_HOME/include occupancy_oracle.cpp -o occupancy_oracle
// Input (stdin), one case per line:  major minor threads regs static_smem dynamic_smem optin carveout [barriers]
// (barriers: named barriers per block, default 0 = not counted, as a default-constructed cudaOccFuncAttributes)
// Output (stdout), one CSV line per case:  the inputs, error, blocks, limiting-factor bits,
// block limits (regs, smem, warps, blocks), allocated regs and smem per block, barriers, barrier limit.
// The device properties are the per-compute-capability values of the CUDA C++ Programming
// Guide (threads per SM, shared memory per SM and per block with opt-in, 1 KB reserved from 8.0 on).
#include <climits>
#include <cstdio>
#include <cuda_occupancy.h>

static bool props_for(int major, int minor, cudaOccDeviceProp &p) {
    p.computeMajor = major; p.computeMinor = minor;
    p.maxThreadsPerBlock = 1024; p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536;
    p.warpSize = 32; p.sharedMemPerBlock = 48 * 1024; p.numSms = 80;
    int cc = major * 10 + minor;
    switch (cc) {
    case 70: p.maxThreadsPerMultiprocessor = 2048; p.sharedMemPerMultiprocessor = 96 * 1024;
             p.sharedMemPerBlockOptin = 96 * 1024; p.reservedSharedMemPerBlock = 0; return true;
    case 75: p.maxThreadsPerMultiprocessor = 1024; p.sharedMemPerMultiprocessor = 64 * 1024;
             p.sharedMemPerBlockOptin = 64 * 1024; p.reservedSharedMemPerBlock = 0; return true;
    case 80: p.maxThreadsPerMultiprocessor = 2048; p.sharedMemPerMultiprocessor = 164 * 1024;
             p.sharedMemPerBlockOptin = 163 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    case 87: p.maxThreadsPerMultiprocessor = 1536; p.sharedMemPerMultiprocessor = 164 * 1024;
             p.sharedMemPerBlockOptin = 163 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    case 86: case 89:
             p.maxThreadsPerMultiprocessor = 1536; p.sharedMemPerMultiprocessor = 100 * 1024;
             p.sharedMemPerBlockOptin = 99 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    case 90: case 100: case 103:
             p.maxThreadsPerMultiprocessor = 2048; p.sharedMemPerMultiprocessor = 228 * 1024;
             p.sharedMemPerBlockOptin = 227 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    case 110: p.maxThreadsPerMultiprocessor = 1536; p.sharedMemPerMultiprocessor = 228 * 1024;
             p.sharedMemPerBlockOptin = 227 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    case 120: case 121: p.maxThreadsPerMultiprocessor = 1536; p.sharedMemPerMultiprocessor = 100 * 1024;
             p.sharedMemPerBlockOptin = 99 * 1024; p.reservedSharedMemPerBlock = 1024; return true;
    }
    return false;
}

int main() {
    int major, minor, threads, regs, optin, carveout;
    long stat, dyn;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        int barriers = 0;
        int got = sscanf(line, "%d %d %d %d %ld %ld %d %d %d", &major, &minor, &threads, &regs, &stat, &dyn,
                         &optin, &carveout, &barriers);
        if (got < 8) break;
        cudaOccDeviceProp prop;
        cudaOccFuncAttributes attr;
        cudaOccDeviceState state;
        cudaOccResult res = {};
        if (!props_for(major, minor, prop)) { printf("unknown cc %d.%d\n", major, minor); return 1; }
        attr.maxThreadsPerBlock = INT_MAX;
        attr.numRegs = regs;
        attr.sharedSizeBytes = (size_t)stat;
        attr.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        size_t limit = optin ? prop.sharedMemPerBlockOptin : prop.sharedMemPerBlock;
        attr.maxDynamicSharedSizeBytes = limit > (size_t)stat ? limit - (size_t)stat : 0;
        attr.numBlockBarriers = barriers;
        state.carveoutConfig = carveout;
        cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, threads, (size_t)dyn);
        printf("%d.%d,%d,%d,%ld,%ld,%d,%d,%d,%d,%u,%d,%d,%d,%d,%d,%zu,%d,%d\n", major, minor, threads, regs, stat,
               dyn, optin, carveout, (int)err, res.activeBlocksPerMultiprocessor, res.limitingFactors,
               res.blockLimitRegs == INT_MAX ? -1 : res.blockLimitRegs,
               res.blockLimitSharedMem == INT_MAX ? -1 : res.blockLimitSharedMem,
               res.blockLimitWarps, res.blockLimitBlocks, res.allocatedRegistersPerBlock,
               res.allocatedSharedMemPerBlock, barriers,
               res.blockLimitBarriers == INT_MAX ? -1 : res.blockLimitBarriers);
    }
    return 0;
}
