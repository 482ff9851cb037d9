/* lavamd_box: the particle-interaction kernel of Rodinia lavaMD: space is cut into boxes1d^3 boxes of
 * 100 particles each; every particle accumulates, from every particle of its own box and of the
 * (up to 26) adjacent boxes, a potential q_j exp(-a2 r2) and a force 2 q_j exp(-a2 r2) (r_i - r_j),
 * with lavaMD's r2 = v_i + v_j - r_i.r_j. About 2000 neighbours per particle, one exp each, in double:
 * compute-bound with a transcendental (category: application). The neighbour-box lists are built
 * before the region (home box first, then the others in order), as lavaMD does. */
#include "../../harness/xapp_harness.h"

#define NPAR 100     /* particles per box */
#define MAXNB 27     /* a box and its neighbours */

typedef struct {
    double v, x, y, z;
} four;

void lavamd_box(int nboxes, double a2, const int *restrict nnum, const int *restrict nlist, const four *restrict rv,
                const double *restrict qv, four *restrict fv) {
#pragma xapp parallel(2) trip(216)
    for (int l = 0; l < nboxes; l++) {
#pragma xapp trip(100)
        for (int i = 0; i < NPAR; i++) {
            const four a = rv[l * NPAR + i];
            double pv = 0.0, fx = 0.0, fy = 0.0, fz = 0.0;
#pragma xapp trip(18.96)
            for (int k = 0; k < nnum[l]; k++) {
                const four *restrict rb = rv + (long)nlist[l * MAXNB + k] * NPAR;
                const double *restrict qb = qv + (long)nlist[l * MAXNB + k] * NPAR;
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
            four f = {pv, fx, fy, fz};
            fv[l * NPAR + i] = f;
        }
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
    xapp_fill_double((double *)rv, 4 * (size_t)np, 0.1, 1.0);   /* v, x, y, z as lavaMD: (rand() % 10 + 1) / 10-like */
    xapp_fill_double(qv, np, 0.1, 1.0);
    double alpha = 0.5, a2 = 2.0 * alpha * alpha;
    XAPP_TIME_REGION(best, lavamd_box(nboxes, a2, nnum, nlist, rv, qv, fv));
    xapp_report(best, xapp_checksum_double((double *)fv, 4 * (size_t)np));
    free(nnum); free(nlist); free(rv); free(fv); free(qv);
    return 0;
}
