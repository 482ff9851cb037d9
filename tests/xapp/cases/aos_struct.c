/* Array of structures: each thread reads one field of a 12-byte record (stride 3 floats). */
struct point { float x, y, z; };
void norm1(long n, const struct point *p, float *out) {
#pragma xapp parallel
    for (long i = 0; i < n; i++) {
        out[i] = p[i].x + p[i].y + p[i].z;
    }
}
