/* cfd_flux, CUDA: as Rodinia cfd's compute_flux kernel, one thread per cell: the cell's own
 * variables, normals and neighbour indices are read coalesced (structure of arrays), the neighbours'
 * variables are gathered (mostly nearby cells, so largely from L2), the free-stream state sits in
 * constant memory. The C side's expressions, in the same order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define GAMMA 1.4f
#define NNB 4
#define NVAR 5
#define SMOOTHING 0.2f

typedef struct {
    float x, y, z;
} v3;

typedef struct {   /* the flux contributions of one state */
    v3 mx, my, mz, de;
} contrib;

__host__ __device__ static inline contrib flux_contribution(float density_energy, v3 m, float pressure, v3 v) {
    contrib c;
    c.mx.x = v.x * m.x + pressure;
    c.mx.y = v.x * m.y;
    c.mx.z = v.x * m.z;
    c.my.x = c.mx.y;
    c.my.y = v.y * m.y + pressure;
    c.my.z = v.y * m.z;
    c.mz.x = c.mx.z;
    c.mz.y = c.my.z;
    c.mz.z = v.z * m.z + pressure;
    float de_p = density_energy + pressure;
    c.de.x = v.x * de_p;
    c.de.y = v.y * de_p;
    c.de.z = v.z * de_p;
    return c;
}

__host__ __device__ static inline v3 velocity(float density, v3 m) {
    v3 v = {m.x / density, m.y / density, m.z / density};
    return v;
}

__host__ __device__ static inline float pressure_of(float density, float density_energy, float speed_sqd) {
    return (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}

typedef struct {   /* the free-stream (far-field) state and its flux contributions */
    float density, density_energy;
    v3 m;
    contrib c;
} far_field;

/* Rodinia cfd's free stream: Mach 1.2, 3 degrees angle of attack (the same code on both sides). */
static far_field make_far_field(void) {
    far_field ff;
    float angle = (float)(3.1415926535897931 / 180.0 * 3.0), p = 1.0f;
    ff.density = 1.4f;
    float sos = sqrtf(GAMMA * p / ff.density), speed = 1.2f * sos;
    v3 v = {speed * cosf(angle), speed * sinf(angle), 0.0f};
    ff.m.x = ff.density * v.x;
    ff.m.y = ff.density * v.y;
    ff.m.z = ff.density * v.z;
    ff.density_energy = ff.density * (0.5f * speed * speed) + p / (GAMMA - 1.0f);
    ff.c = flux_contribution(ff.density_energy, ff.m, p, v);
    return ff;
}

__constant__ far_field c_ff;

__global__ void compute_flux(long nelr, const int *__restrict__ nbs, const float *__restrict__ normals,
                             const float *__restrict__ vars, float *__restrict__ fluxes) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr) return;
    float density_i = vars[i];
    v3 m_i = {vars[i + 1 * nelr], vars[i + 2 * nelr], vars[i + 3 * nelr]};
    float de_i = vars[i + 4 * nelr];
    v3 v_i = velocity(density_i, m_i);
    float speed_sqd_i = v_i.x * v_i.x + v_i.y * v_i.y + v_i.z * v_i.z;
    float speed_i = sqrtf(speed_sqd_i);
    float pressure_i = pressure_of(density_i, de_i, speed_sqd_i);
    float sos_i = sqrtf(GAMMA * pressure_i / density_i);
    contrib c_i = flux_contribution(de_i, m_i, pressure_i, v_i);
    float f_density = 0.0f, f_de = 0.0f;
    v3 f_m = {0.0f, 0.0f, 0.0f};
    for (int j = 0; j < NNB; j++) {
        long nb = nbs[i + j * nelr];
        v3 n = {normals[i + (j + 0 * NNB) * nelr], normals[i + (j + 1 * NNB) * nelr], normals[i + (j + 2 * NNB) * nelr]};
        float normal_len = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
        if (nb >= 0) {
            float density_nb = vars[nb];
            v3 m_nb = {vars[nb + 1 * nelr], vars[nb + 2 * nelr], vars[nb + 3 * nelr]};
            float de_nb = vars[nb + 4 * nelr];
            v3 v_nb = velocity(density_nb, m_nb);
            float speed_sqd_nb = v_nb.x * v_nb.x + v_nb.y * v_nb.y + v_nb.z * v_nb.z;
            float pressure_nb = pressure_of(density_nb, de_nb, speed_sqd_nb);
            float sos_nb = sqrtf(GAMMA * pressure_nb / density_nb);
            contrib c_nb = flux_contribution(de_nb, m_nb, pressure_nb, v_nb);
            /* artificial viscosity */
            float factor = -normal_len * SMOOTHING * 0.5f * (speed_i + sqrtf(speed_sqd_nb) + sos_i + sos_nb);
            f_density += factor * (density_i - density_nb);
            f_de += factor * (de_i - de_nb);
            f_m.x += factor * (m_i.x - m_nb.x);
            f_m.y += factor * (m_i.y - m_nb.y);
            f_m.z += factor * (m_i.z - m_nb.z);
            /* accumulate cell-centred fluxes */
            factor = 0.5f * n.x;
            f_density += factor * (m_nb.x + m_i.x);
            f_de += factor * (c_nb.de.x + c_i.de.x);
            f_m.x += factor * (c_nb.mx.x + c_i.mx.x);
            f_m.y += factor * (c_nb.my.x + c_i.my.x);
            f_m.z += factor * (c_nb.mz.x + c_i.mz.x);
            factor = 0.5f * n.y;
            f_density += factor * (m_nb.y + m_i.y);
            f_de += factor * (c_nb.de.y + c_i.de.y);
            f_m.x += factor * (c_nb.mx.y + c_i.mx.y);
            f_m.y += factor * (c_nb.my.y + c_i.my.y);
            f_m.z += factor * (c_nb.mz.y + c_i.mz.y);
            factor = 0.5f * n.z;
            f_density += factor * (m_nb.z + m_i.z);
            f_de += factor * (c_nb.de.z + c_i.de.z);
            f_m.x += factor * (c_nb.mx.z + c_i.mx.z);
            f_m.y += factor * (c_nb.my.z + c_i.my.z);
            f_m.z += factor * (c_nb.mz.z + c_i.mz.z);
        } else if (nb == -1) {   /* wall: pressure only */
            f_m.x += n.x * pressure_i;
            f_m.y += n.y * pressure_i;
            f_m.z += n.z * pressure_i;
        } else {                 /* far field */
            float factor = 0.5f * n.x;
            f_density += factor * (c_ff.m.x + m_i.x);
            f_de += factor * (c_ff.c.de.x + c_i.de.x);
            f_m.x += factor * (c_ff.c.mx.x + c_i.mx.x);
            f_m.y += factor * (c_ff.c.my.x + c_i.my.x);
            f_m.z += factor * (c_ff.c.mz.x + c_i.mz.x);
            factor = 0.5f * n.y;
            f_density += factor * (c_ff.m.y + m_i.y);
            f_de += factor * (c_ff.c.de.y + c_i.de.y);
            f_m.x += factor * (c_ff.c.mx.y + c_i.mx.y);
            f_m.y += factor * (c_ff.c.my.y + c_i.my.y);
            f_m.z += factor * (c_ff.c.mz.y + c_i.mz.y);
            factor = 0.5f * n.z;
            f_density += factor * (c_ff.m.z + m_i.z);
            f_de += factor * (c_ff.c.de.z + c_i.de.z);
            f_m.x += factor * (c_ff.c.mx.z + c_i.mx.z);
            f_m.y += factor * (c_ff.c.my.z + c_i.my.z);
            f_m.z += factor * (c_ff.c.mz.z + c_i.mz.z);
        }
    }
    fluxes[i] = f_density;
    fluxes[i + 1 * nelr] = f_m.x;
    fluxes[i + 2 * nelr] = f_m.y;
    fluxes[i + 3 * nelr] = f_m.z;
    fluxes[i + 4 * nelr] = f_de;
}

/* The synthetic mesh: face j of cell i (at [i + j * nelr]) has a neighbour within +-2048 cells
 * (wrapping), or 1% of the time a wall (-1), 1% the far field (-2). The same code on both sides. */
static void make_mesh(long nelr, int *nbs) {
    int *kind = (int *)xapp_alloc((size_t)NNB * nelr * sizeof(int)), *off = (int *)xapp_alloc((size_t)NNB * nelr * sizeof(int));
    xapp_fill_int(kind, (size_t)NNB * nelr, 0, 100);
    xapp_fill_int(off, (size_t)NNB * nelr, -2048, 2048);
    for (long k = 0; k < NNB * nelr; k++) {
        long i = k % nelr;
        nbs[k] = kind[k] == 0 ? -1 : kind[k] == 1 ? -2 : (int)(((i + off[k]) % nelr + nelr) % nelr);
    }
    free(kind); free(off);
}

int main(int argc, char **argv) {
    long nelr = xapp_arg(argc, argv, 1, 1048576);
    size_t nb_bytes = (size_t)NNB * nelr * sizeof(int), n_bytes = (size_t)3 * NNB * nelr * sizeof(float);
    size_t v_bytes = (size_t)NVAR * nelr * sizeof(float);
    int *nbs = (int *)xapp_alloc(nb_bytes);
    float *normals = (float *)xapp_alloc(n_bytes), *vars = (float *)xapp_alloc(v_bytes), *fluxes = (float *)xapp_alloc(v_bytes);
    xapp_seed(411);
    make_mesh(nelr, nbs);
    xapp_fill_float(normals, (size_t)3 * NNB * nelr, -1.0f, 1.0f);
    xapp_fill_float(vars, nelr, 1.0f, 2.0f);                       /* density */
    xapp_fill_float(vars + nelr, (size_t)3 * nelr, -0.5f, 0.5f);   /* momentum */
    xapp_fill_float(vars + 4 * nelr, nelr, 2.5f, 3.5f);            /* energy */
    far_field ff = make_far_field();
    int *dnbs;
    float *dnormals, *dvars, *dfluxes;
    XAPP_CUDA(cudaMalloc(&dnbs, nb_bytes)); XAPP_CUDA(cudaMalloc(&dnormals, n_bytes));
    XAPP_CUDA(cudaMalloc(&dvars, v_bytes)); XAPP_CUDA(cudaMalloc(&dfluxes, v_bytes));
    XAPP_CUDA(cudaMemcpy(dnbs, nbs, nb_bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dnormals, normals, n_bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dvars, vars, v_bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(c_ff, &ff, sizeof(far_field)));
    int threads = 192;
    long blocks = (nelr + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, compute_flux<<<blocks, threads>>>(nelr, dnbs, dnormals, dvars, dfluxes));
    XAPP_CUDA(cudaMemcpy(fluxes, dfluxes, v_bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(fluxes, (size_t)NVAR * nelr));
    cudaFree(dnbs); cudaFree(dnormals); cudaFree(dvars); cudaFree(dfluxes);
    free(nbs); free(normals); free(vars); free(fluxes);
    return 0;
}
