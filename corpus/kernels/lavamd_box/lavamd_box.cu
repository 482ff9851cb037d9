/* lavamd_box, CUDA: as lavaMD's GPU kernel, one 128-thread block per home box, one thread per home
 * particle; for each neighbour box the block stages the box's 100 positions and charges in shared
 * memory, then every thread runs over them (all threads read the same particle: a broadcast),
 * accumulating in registers in the C side's order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define NPAR 100     /* particles per box */
#define MAXNB 27     /* a box and its neighbours */
#define THREADS 128

typedef struct {
    double v, x, y, z;
} four;

__global__ void __launch_bounds__(THREADS) box_forces(double a2, const int *__restrict__ nnum, const int *__restrict__ nlist,
                                                      const four *__restrict__ rv, const double *__restrict__ qv,
                                                      four *__restrict__ fv) {
    __shared__ four rb[NPAR];
    __shared__ double qb[NPAR];
    int l = blockIdx.x, i = threadIdx.x;
    four a = {0.0, 0.0, 0.0, 0.0};
    if (i < NPAR) a = rv[l * NPAR + i];
    double pv = 0.0, fx = 0.0, fy = 0.0, fz = 0.0;
    int nn = nnum[l];
    for (int k = 0; k < nn; k++) {
        long b = nlist[l * MAXNB + k];
        __syncthreads();   /* the previous box is no longer read */
        if (i < NPAR) {
            rb[i] = rv[b * NPAR + i];
            qb[i] = qv[b * NPAR + i];
        }
        __syncthreads();
        if (i < NPAR)
            for (int j = 0; j < NPAR; j++) {
                double r2 = a.v + rb[j].v - (a.x * rb[j].x + a.y * rb[j].y + a.z * rb[j].z);
                double vij = exp(-a2 * r2);
                double fs = 2.0 * vij;
                pv += qb[j] * vij;
                fx += qb[j] * (fs * (a.x - rb[j].x));
                fy += qb[j] * (fs * (a.y - rb[j].y));
                fz += qb[j] * (fs * (a.z - rb[j].z));
            }
    }
    if (i < NPAR) {
        four f = {pv, fx, fy, fz};
        fv[l * NPAR + i] = f;
    }
}

/* For each box, itself and then its adjacent boxes in (z, y, x) order (the same code on both sides). */
static void neighbours(int b1, int *nnum, int *nlist) {
    for (int z = 0; z < b1; z++)
        for (int y = 0; y < b1; y++)
            for (int x = 0; x < b1; x++) {
                int l = (z * b1 + y) * b1 + x, n = 0;
                nlist[l * MAXNB + n++] = l;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int zz = z + dz, yy = y + dy, xx = x + dx;
                            if ((dz || dy || dx) && zz >= 0 && zz < b1 && yy >= 0 && yy < b1 && xx >= 0 && xx < b1)
                                nlist[l * MAXNB + n++] = (zz * b1 + yy) * b1 + xx;
                        }
                nnum[l] = n;
            }
}

int main(int argc, char **argv) {
    int b1 = (int)xapp_arg(argc, argv, 1, 6);
    int nboxes = b1 * b1 * b1;
    long np = (long)nboxes * NPAR;
    int *nnum = (int *)xapp_alloc(nboxes * sizeof(int)), *nlist = (int *)xapp_alloc((size_t)nboxes * MAXNB * sizeof(int));
    four *rv = (four *)xapp_alloc(np * sizeof(four)), *fv = (four *)xapp_alloc(np * sizeof(four));
    double *qv = (double *)xapp_alloc(np * sizeof(double));
    neighbours(b1, nnum, nlist);
    xapp_seed(410);
    xapp_fill_double((double *)rv, 4 * (size_t)np, 0.1, 1.0);
    xapp_fill_double(qv, np, 0.1, 1.0);
    double alpha = 0.5, a2 = 2.0 * alpha * alpha;
    int *dnnum, *dnlist;
    four *drv, *dfv;
    double *dqv;
    XAPP_CUDA(cudaMalloc(&dnnum, nboxes * sizeof(int))); XAPP_CUDA(cudaMalloc(&dnlist, (size_t)nboxes * MAXNB * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&drv, np * sizeof(four))); XAPP_CUDA(cudaMalloc(&dfv, np * sizeof(four)));
    XAPP_CUDA(cudaMalloc(&dqv, np * sizeof(double)));
    XAPP_CUDA(cudaMemcpy(dnnum, nnum, nboxes * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dnlist, nlist, (size_t)nboxes * MAXNB * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(drv, rv, np * sizeof(four), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dqv, qv, np * sizeof(double), cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, box_forces<<<nboxes, THREADS>>>(a2, dnnum, dnlist, drv, dqv, dfv));
    XAPP_CUDA(cudaMemcpy(fv, dfv, np * sizeof(four), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double((double *)fv, 4 * (size_t)np));
    cudaFree(dnnum); cudaFree(dnlist); cudaFree(drv); cudaFree(dfv); cudaFree(dqv);
    free(nnum); free(nlist); free(rv); free(fv); free(qv);
    return 0;
}
