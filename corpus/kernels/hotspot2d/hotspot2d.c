/* hotspot2d: the thermal simulation of Rodinia hotspot: a chip's temperature grid is stepped forward
 * in time from its power dissipation, the heat flow to its four neighbours (replicated at the chip's
 * edge) and to the ambient,
 *   T' = T + step/Cap (P + (T_S + T_N - 2T)/Ry + (T_E + T_W - 2T)/Rx + (T_amb - T)/Rz),
 * ping-ponging between two buffers; the time loop stays on the host, one launch per step
 * (category: application). The chip's constants are Rodinia's. */
#include "../../harness/xapp_harness.h"

typedef struct {
    float sdc, rx1, ry1, rz1, amb;   /* step/Cap, 1/Rx, 1/Ry, 1/Rz, ambient temperature */
} chip;

/* Rodinia hotspot's constants for a rows x cols grid on a 16 mm x 16 mm x 0.5 mm chip (in double,
 * the same code on both sides). */
static chip chip_constants(long rows, long cols) {
    double t_chip = 0.0005, height = 0.016, width = 0.016, k_si = 100.0, spec_heat = 1.75e6, factor = 0.5;
    double gh = height / rows, gw = width / cols;
    double cap = factor * spec_heat * t_chip * gw * gh;
    double rx = gw / (2.0 * k_si * t_chip * gh), ry = gh / (2.0 * k_si * t_chip * gw), rz = t_chip / (k_si * gh * gw);
    double max_slope = 3.0e6 / (factor * t_chip * spec_heat), step = 0.001 / max_slope;
    chip k = {(float)(step / cap), (float)(1.0 / rx), (float)(1.0 / ry), (float)(1.0 / rz), 80.0f};
    return k;
}

static inline float cell(chip k, float t, float p, float n, float s, float w, float e) {
    return t + k.sdc * (p + (s + n - 2.0f * t) * k.ry1 + (e + w - 2.0f * t) * k.rx1 + (k.amb - t) * k.rz1);
}

/* Steps read `in` first, then alternate a -> b -> a ...; returns the buffer holding the last step.
 * Row pointers to the rows above and below are clamped once per row; the first and last column are
 * peeled off so that the interior loop has plain unit-stride neighbours. */
float *hotspot2d(long rows, long cols, long steps, chip k, const float *in, const float *restrict power,
                 float *a, float *b) {
    const float *src = in;
    float *dst = a;
#pragma xapp trip(100)
    for (long t = 0; t < steps; t++) {
#pragma xapp parallel(2) trip(1024)
        for (long i = 0; i < rows; i++) {
            long o = i * cols;
            const float *restrict tc = src + o, *restrict pc = power + o;
            const float *restrict tn = src + (i > 0 ? i - 1 : 0) * cols;
            const float *restrict ts = src + (i < rows - 1 ? i + 1 : rows - 1) * cols;
            float *restrict out = dst + o;
#pragma xapp trip(1022)
            for (long j = 1; j < cols - 1; j++) out[j] = cell(k, tc[j], pc[j], tn[j], ts[j], tc[j - 1], tc[j + 1]);
            out[0] = cell(k, tc[0], pc[0], tn[0], ts[0], tc[0], tc[1]);
            out[cols - 1] = cell(k, tc[cols - 1], pc[cols - 1], tn[cols - 1], ts[cols - 1], tc[cols - 2], tc[cols - 1]);
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return (float *)src;
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 1024), cols = xapp_arg(argc, argv, 2, 1024), steps = xapp_arg(argc, argv, 3, 100);
    if (cols < 2) { fprintf(stderr, "hotspot2d: needs at least 2 columns\n"); return 2; }
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *temp = (float *)xapp_alloc(bytes), *power = (float *)xapp_alloc(bytes);
    float *a = (float *)xapp_alloc(bytes), *b = (float *)xapp_alloc(bytes);
    xapp_seed(407);
    xapp_fill_float(temp, cnt, 323.0f, 343.0f);
    xapp_fill_float(power, cnt, 0.0f, 0.5f);
    chip k = chip_constants(rows, cols);
    float *out = NULL;
    XAPP_TIME_REGION(best, out = hotspot2d(rows, cols, steps, k, temp, power, a, b));
    xapp_report(best, xapp_checksum_float(out, cnt));
    free(temp); free(power); free(a); free(b);
    return 0;
}
