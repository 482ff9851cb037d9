/* ray_sphere: ray casting. A pinhole camera at the origin looks down +z; the ray of every pixel
 * of a w x h image is tested against every sphere of a list, the nearest hit is kept and shaded
 * (Lambert term towards a fixed light plus ambient, times the sphere's albedo); pixels that hit
 * nothing stay 0 (category: data-dependent-branches: the square root and the nearest-hit update
 * run only for the spheres a ray meets, which differ between neighbouring pixels at sphere
 * edges). The sphere list is small and read by every pixel (constant memory on the GPU). */
#include "../../harness/xapp_harness.h"

typedef struct {
    const float *cx, *cy, *cz, *r, *albedo;
} spheres_t;

void ray_sphere(int w, int h, int ns, spheres_t s, float *restrict image) {
    const float lx = -0.408248290f, ly = 0.816496581f, lz = -0.408248290f;   /* unit vector to the light */
    const float scale = 1.0f / (float)h;
#pragma xapp parallel(2) trip(768)
    for (int py = 0; py < h; py++) {
#pragma xapp trip(1024)
        for (int px = 0; px < w; px++) {
            /* ray direction through the pixel centre, normalised */
            float dx = ((float)px - 0.5f * (float)w + 0.5f) * scale;
            float dy = ((float)py - 0.5f * (float)h + 0.5f) * scale;
            float inv = 1.0f / sqrtf(dx * dx + dy * dy + 1.0f);
            dx *= inv; dy *= inv;
            float dz = inv;
            float tmin = INFINITY;
            int hit = -1;
#pragma xapp trip(128)
            for (int k = 0; k < ns; k++) {
                /* |t d - c|^2 = r^2  ->  t^2 - 2 t (d.c) + |c|^2 - r^2 = 0 */
                float b = dx * s.cx[k] + dy * s.cy[k] + dz * s.cz[k];
                float c = s.cx[k] * s.cx[k] + s.cy[k] * s.cy[k] + s.cz[k] * s.cz[k] - s.r[k] * s.r[k];
                float disc = b * b - c;
#pragma xapp prob(0.019)
                if (disc > 0.0f) {
                    float t = b - sqrtf(disc);
                    if (t > 1e-3f && t < tmin) { tmin = t; hit = k; }
                }
            }
            float shade = 0.0f;
            if (hit >= 0) {
                float inv_r = 1.0f / s.r[hit];
                float nx = (tmin * dx - s.cx[hit]) * inv_r, ny = (tmin * dy - s.cy[hit]) * inv_r;
                float nz = (tmin * dz - s.cz[hit]) * inv_r;
                float lambert = nx * lx + ny * ly + nz * lz;
                shade = s.albedo[hit] * (0.1f + 0.9f * (lambert > 0.0f ? lambert : 0.0f));
            }
            image[(long)py * w + px] = shade;
        }
    }
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1024), h = (int)xapp_arg(argc, argv, 2, 768);
    int ns = (int)xapp_arg(argc, argv, 3, 128);
    float *image = xapp_alloc((size_t)w * h * sizeof(float));
    float *cx = xapp_alloc(ns * sizeof(float)), *cy = xapp_alloc(ns * sizeof(float)), *cz = xapp_alloc(ns * sizeof(float));
    float *r = xapp_alloc(ns * sizeof(float)), *albedo = xapp_alloc(ns * sizeof(float));
    xapp_seed(508);
    xapp_fill_float(cx, ns, -5.0f, 5.0f);
    xapp_fill_float(cy, ns, -3.5f, 3.5f);
    xapp_fill_float(cz, ns, 6.0f, 20.0f);
    xapp_fill_float(r, ns, 0.3f, 1.5f);
    xapp_fill_float(albedo, ns, 0.2f, 1.0f);
    spheres_t s = {cx, cy, cz, r, albedo};
    XAPP_TIME_REGION(best, ray_sphere(w, h, ns, s, image));
    xapp_report(best, xapp_checksum_float(image, (size_t)w * h));
    free(image); free(cx); free(cy); free(cz); free(r); free(albedo);
    return 0;
}
