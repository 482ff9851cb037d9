/* myocyte_few, CUDA: one 32-thread block (a warp) per model, lane k owning gate k, the whole time
 * loop inside the kernel: each step every gate lane writes its ionic current term to shared memory,
 * one __syncthreads, then every lane sums the terms in the C side's order and advances V itself (so
 * no broadcast is needed), and the gate lanes apply their exponential updates. The terms are
 * double-buffered, so one barrier per step suffices. Only ninst blocks of 12 busy lanes: the GPU
 * is mostly idle and each step is a chain of dependent double-precision exp/sin latencies. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define G 12          /* gates per model */
#define NP (6 * G + 2)  /* parameters per model: a, b, slope, vhalf, gmax, erev per gate; I0, omega */
#define TRACE 100     /* steps between recorded voltages */
#define GLEAK 0.05
#define ELEAK -70.0

__global__ void __launch_bounds__(32) integrate(long nsteps, double dt, const double *__restrict__ par,
                                                const double *__restrict__ y0, double *__restrict__ state,
                                                double *__restrict__ trace) {
    __shared__ double term[2][G];
    int s = blockIdx.x, k = threadIdx.x;
    long ntr = nsteps / TRACE;
    const double *p = par + (long)s * NP;
    bool gate = k < G;
    double a = 0.0, b = 0.0, sl = 0.0, vh = 0.0, gm = 0.0, er = 0.0, y = 0.0;
    if (gate) {
        a = p[k];
        b = p[G + k];
        sl = p[2 * G + k];
        vh = p[3 * G + k];
        gm = p[4 * G + k];
        er = p[5 * G + k];
        y = y0[(long)s * G + k];
    }
    double i0 = p[6 * G], omega = p[6 * G + 1], V = ELEAK;
    for (long t = 0; t < nsteps; t++) {
        int buf = (int)(t & 1);
        if (gate) term[buf][k] = gm * y * (V - er);
        __syncthreads();
        double iion = GLEAK * (V - ELEAK);
        for (int q = 0; q < G; q++) iion += term[buf][q];
        double istim = i0 * sin(omega * (t * dt));
        if (gate) {
            double ex = exp(sl * (V - vh));
            double al = a * ex, be = b / ex, r = al + be, yinf = al / r;
            y = yinf + (y - yinf) * exp(-dt * r);
        }
        V += dt * (istim - iion);
        if (k == 0 && (t + 1) % TRACE == 0) trace[(long)s * ntr + (t + 1) / TRACE - 1] = V;
    }
    if (k == 0) state[(long)s * (G + 1)] = V;
    if (gate) state[(long)s * (G + 1) + 1 + k] = y;
}

/* Each model's parameters, parameter by parameter over all models (the same calls on both sides). */
static void make_params(int ninst, double *par, double *y0) {
    static const double lo[6] = {0.05, 0.05, 0.02, -60.0, 0.01, -90.0}, hi[6] = {0.5, 0.5, 0.08, -20.0, 0.1, 60.0};
    for (int q = 0; q < 6; q++)
        for (int s = 0; s < ninst; s++) xapp_fill_double(par + (long)s * NP + q * G, G, lo[q], hi[q]);
    for (int s = 0; s < ninst; s++) {
        xapp_fill_double(par + (long)s * NP + 6 * G, 1, 1.0, 5.0);      /* stimulus amplitude */
        xapp_fill_double(par + (long)s * NP + 6 * G + 1, 1, 0.01, 0.05);  /* stimulus frequency (rad/ms) */
    }
    xapp_fill_double(y0, (size_t)ninst * G, 0.0, 1.0);
}

int main(int argc, char **argv) {
    int ninst = (int)xapp_arg(argc, argv, 1, 8);
    long nsteps = xapp_arg(argc, argv, 2, 100000);
    double dt = 0.01;   /* ms */
    long ntr = nsteps / TRACE;
    size_t pbytes = (size_t)ninst * NP * sizeof(double), ybytes = (size_t)ninst * G * sizeof(double);
    size_t sbytes = (size_t)ninst * (G + 1) * sizeof(double), tbytes = (size_t)ninst * (ntr > 0 ? ntr : 1) * sizeof(double);
    double *par = (double *)xapp_alloc(pbytes), *y0 = (double *)xapp_alloc(ybytes);
    double *state = (double *)xapp_alloc(sbytes), *trace = (double *)xapp_alloc(tbytes);
    xapp_seed(414);
    make_params(ninst, par, y0);
    double *dpar, *dy0, *dstate, *dtrace;
    XAPP_CUDA(cudaMalloc(&dpar, pbytes)); XAPP_CUDA(cudaMalloc(&dy0, ybytes));
    XAPP_CUDA(cudaMalloc(&dstate, sbytes)); XAPP_CUDA(cudaMalloc(&dtrace, tbytes));
    XAPP_CUDA(cudaMemcpy(dpar, par, pbytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dy0, y0, ybytes, cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, integrate<<<ninst, 32>>>(nsteps, dt, dpar, dy0, dstate, dtrace));
    XAPP_CUDA(cudaMemcpy(state, dstate, sbytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(trace, dtrace, tbytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(state, (size_t)ninst * (G + 1)) + xapp_checksum_double(trace, (size_t)ninst * ntr));
    cudaFree(dpar); cudaFree(dy0); cudaFree(dstate); cudaFree(dtrace);
    free(par); free(y0); free(state); free(trace);
    return 0;
}
