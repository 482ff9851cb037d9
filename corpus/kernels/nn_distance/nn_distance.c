/* nn_distance: the GPU part of Rodinia's nearest-neighbour search: the Euclidean distance from a
 * target (latitude, longitude) to every record of a table of (lat, lng) structs. One square root
 * per 8 bytes read (category: application). */
#include "../../harness/xapp_harness.h"

typedef struct {
    float lat, lng;
} latlong;

void nn_distance(long n, const latlong *restrict rec, float tlat, float tlng, float *restrict dist) {
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        float dlat = tlat - rec[i].lat, dlng = tlng - rec[i].lng;
        dist[i] = sqrtf(dlat * dlat + dlng * dlng);
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 33554432);
    latlong *rec = (latlong *)xapp_alloc(n * sizeof(latlong));
    float *dist = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(405);
    xapp_fill_float((float *)rec, 2 * (size_t)n, 0.0f, 90.0f);   /* lat, lng, lat, lng, ... */
    float target[2];
    xapp_fill_float(target, 2, 30.0f, 60.0f);
    XAPP_TIME_REGION(best, nn_distance(n, rec, target[0], target[1], dist));
    xapp_report(best, xapp_checksum_float(dist, n));
    free(rec); free(dist);
    return 0;
}
