/* pointer_chase: a few walkers follow `next` pointers through one random cycle over n nodes,
 * summing the nodes' values: every load depends on the previous one (latency-bound), and the
 * only parallelism is the handful of walkers (category: gpu-hostile). */
#include "../../harness/xapp_harness.h"

/* Deterministic random single cycle through all n nodes (Sattolo's algorithm), shared by copy
 * with the .cu side. */
static void make_cycle(long n, int *next) {
    for (long i = 0; i < n; i++) next[i] = (int)i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)(xapp_next() % (uint64_t)i);
        int t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

/* out[2w] = walker w's value sum (mod 2^31), out[2w+1] = its final node.
 * The walkers advance in lockstep: the step loop runs on the host around a band over the walkers,
 * so that their independent loads are in flight together instead of one chain at a time. Each
 * walker visits the same nodes and sums the same values. */
void pointer_chase(int nwalk, long steps, const int *restrict next, const int *restrict val, const int *restrict start,
                   int *restrict out) {
    int p[nwalk];          /* nwalk is a handful */
    unsigned sum[nwalk];
    for (int w = 0; w < nwalk; w++) {
        p[w] = start[w];
        sum[w] = 0;
    }
#pragma xapp trip(262144)
    for (long s = 0; s < steps; s++) {
#pragma xapp parallel trip(4)
        for (int w = 0; w < nwalk; w++) {
            p[w] = next[p[w]];
            sum[w] += (unsigned)val[p[w]];
        }
    }
    for (int w = 0; w < nwalk; w++) {
        out[2 * w] = (int)(sum[w] & 0x7fffffffu);
        out[2 * w + 1] = p[w];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 24);
    long steps = xapp_arg(argc, argv, 2, 1L << 18);
    int nwalk = (int)xapp_arg(argc, argv, 3, 4);
    int *next = (int *)xapp_alloc((size_t)n * sizeof(int)), *val = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *start = (int *)xapp_alloc((size_t)nwalk * sizeof(int)), *out = (int *)xapp_alloc((size_t)2 * nwalk * sizeof(int));
    xapp_seed(28);
    make_cycle(n, next);
    xapp_fill_int(val, n, 0, 1000);
    xapp_fill_int(start, nwalk, 0, (int)n);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        pointer_chase(nwalk, steps, next, val, start, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(out, 2 * (size_t)nwalk));
    free(next); free(val); free(start); free(out);
    return 0;
}
