/* haversine: great-circle distance of n pairs of points on the Earth (latitude/longitude in
 * radians): 3 sinf, 2 cosf, an asinf and a sqrtf per pair (category: transcendental). */
#include "../../harness/xapp_harness.h"

#define EARTH_RADIUS_KM 6371.0f

void haversine(long n, const float *restrict lat1, const float *restrict lon1, const float *restrict lat2,
               const float *restrict lon2, float *restrict dist) {
#pragma xapp parallel trip(4194304)
    for (long i = 0; i < n; i++) {
        float sdlat = sinf(0.5f * (lat2[i] - lat1[i]));
        float sdlon = sinf(0.5f * (lon2[i] - lon1[i]));
        float a = sdlat * sdlat + cosf(lat1[i]) * cosf(lat2[i]) * sdlon * sdlon;
        a = fminf(a, 1.0f);   /* rounding may push a past 1, outside asinf's domain */
        dist[i] = 2.0f * EARTH_RADIUS_KM * asinf(sqrtf(a));
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    size_t bytes = (size_t)n * sizeof(float);
    float *lat1 = (float *)xapp_alloc(bytes), *lon1 = (float *)xapp_alloc(bytes);
    float *lat2 = (float *)xapp_alloc(bytes), *lon2 = (float *)xapp_alloc(bytes), *dist = (float *)xapp_alloc(bytes);
    xapp_seed(23);
    xapp_fill_float(lat1, n, -1.5707963f, 1.5707963f);
    xapp_fill_float(lon1, n, -3.1415927f, 3.1415927f);
    xapp_fill_float(lat2, n, -1.5707963f, 1.5707963f);
    xapp_fill_float(lon2, n, -3.1415927f, 3.1415927f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        haversine(n, lat1, lon1, lat2, lon2, dist);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(dist, n));
    free(lat1); free(lon1); free(lat2); free(lon2); free(dist);
    return 0;
}
