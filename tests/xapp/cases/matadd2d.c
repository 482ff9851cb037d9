/* 2-D band with constant bounds: row-major accesses, stride 1 along the inner band loop. */
#define ROWS 512
#define COLS 256
void matadd(const float *a, const float *b, float *c) {
#pragma xapp parallel(2)
    for (long i = 0; i < ROWS; i++)
        for (long j = 0; j < COLS; j++)
            c[i * COLS + j] = a[i * COLS + j] + b[i * COLS + j];
}
