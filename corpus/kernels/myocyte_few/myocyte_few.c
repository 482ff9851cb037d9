/* myocyte_few: a few cardiac-cell-like models, each a small stiff ODE system (a membrane voltage V
 * and G = 12 gating variables with voltage-dependent exponential rates) driven by a sinusoidal
 * stimulus, integrated over many time steps with the Rush-Larsen scheme (exact exponential update
 * of each stiff gate, forward Euler for V). Each model is a serial chain of steps; the only
 * parallelism is the handful of models (and the gates within a step): GPU-hostile
 * (category: gpu-hostile). V is recorded every TRACE steps. Double precision. */
#include "../../harness/xapp_harness.h"

#define G 12          /* gates per model */
#define NP (6 * G + 2)  /* parameters per model: a, b, slope, vhalf, gmax, erev per gate; I0, omega */
#define TRACE 100     /* steps between recorded voltages */
#define GLEAK 0.05
#define ELEAK -70.0

void myocyte_few(int ninst, long nsteps, double dt, const double *restrict par, const double *restrict y0,
                 double *restrict state, double *restrict trace) {
    long ntr = nsteps / TRACE;
#pragma xapp parallel trip(8)
    for (int s = 0; s < ninst; s++) {
        const double *restrict p = par + (long)s * NP;
        const double *a = p, *b = p + G, *sl = p + 2 * G, *vh = p + 3 * G, *gm = p + 4 * G, *er = p + 5 * G;
        double i0 = p[6 * G], omega = p[6 * G + 1];
        double y[G], V = ELEAK;
        for (int k = 0; k < G; k++) y[k] = y0[(long)s * G + k];
#pragma xapp trip(100000)
        for (long t = 0; t < nsteps; t++) {
            double iion = GLEAK * (V - ELEAK);
            for (int k = 0; k < G; k++) iion += gm[k] * y[k] * (V - er[k]);
            double istim = i0 * sin(omega * (t * dt));
            for (int k = 0; k < G; k++) {
                double ex = exp(sl[k] * (V - vh[k]));
                double al = a[k] * ex, be = b[k] / ex, r = al + be, yinf = al / r;
                y[k] = yinf + (y[k] - yinf) * exp(-dt * r);
            }
            V += dt * (istim - iion);
#pragma xapp prob(0.01)
            if ((t + 1) % TRACE == 0) trace[(long)s * ntr + (t + 1) / TRACE - 1] = V;
        }
        state[(long)s * (G + 1)] = V;
        for (int k = 0; k < G; k++) state[(long)s * (G + 1) + 1 + k] = y[k];
    }
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
    double *par = (double *)xapp_alloc((size_t)ninst * NP * sizeof(double)), *y0 = (double *)xapp_alloc((size_t)ninst * G * sizeof(double));
    double *state = (double *)xapp_alloc((size_t)ninst * (G + 1) * sizeof(double));
    double *trace = (double *)xapp_alloc((size_t)ninst * (ntr > 0 ? ntr : 1) * sizeof(double));
    xapp_seed(414);
    make_params(ninst, par, y0);
    XAPP_TIME_REGION(best, myocyte_few(ninst, nsteps, dt, par, y0, state, trace));
    xapp_report(best, xapp_checksum_double(state, (size_t)ninst * (G + 1)) + xapp_checksum_double(trace, (size_t)ninst * ntr));
    free(par); free(y0); free(state); free(trace);
    return 0;
}
