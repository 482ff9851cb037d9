/* pathfinder: the dynamic programming of Rodinia pathfinder: going down a rows x cols grid of
 * integer costs, the cheapest path to each cell of a row comes from one of the three cells above it,
 *   cost[t+1][j] = wall[t+1][j] + min(cost[t][j-1], cost[t][j], cost[t][j+1]).
 * Each row depends on the previous one: the row loop stays on the host (one launch per row), the
 * columns are the band (category: application). Integer, exact. */
#include "../../harness/xapp_harness.h"

static inline int min3(int a, int b, int c) {
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* Returns the buffer (a or b) holding the last row's costs. The first and last column (with two
 * candidates only) are peeled off, so the interior loop is plain unit stride and vectorises. */
int *pathfinder(long cols, long rows, const int *restrict wall, int *a, int *b) {
    const int *src = wall;   /* row 0's costs are its wall values */
    int *dst = a;
#pragma xapp trip(999)
    for (long t = 1; t < rows; t++) {
        const int *restrict w = wall + t * cols;
        const int *restrict s = src;
        int *restrict d = dst;
#pragma xapp parallel trip(65534)
        for (long j = 1; j < cols - 1; j++) d[j] = w[j] + min3(s[j - 1], s[j], s[j + 1]);
        d[0] = w[0] + (s[0] < s[1] ? s[0] : s[1]);
        d[cols - 1] = w[cols - 1] + (s[cols - 2] < s[cols - 1] ? s[cols - 2] : s[cols - 1]);
        src = dst;
        dst = dst == a ? b : a;
    }
    return (int *)src;
}

int main(int argc, char **argv) {
    long cols = xapp_arg(argc, argv, 1, 65536), rows = xapp_arg(argc, argv, 2, 1000);
    if (cols < 2 || rows < 2) { fprintf(stderr, "pathfinder: needs at least 2 rows and 2 columns\n"); return 2; }
    int *wall = (int *)xapp_alloc((size_t)rows * cols * sizeof(int));
    int *a = (int *)xapp_alloc(cols * sizeof(int)), *b = (int *)xapp_alloc(cols * sizeof(int));
    xapp_seed(408);
    xapp_fill_int(wall, (size_t)rows * cols, 0, 10);
    int *out = NULL;
    XAPP_TIME_REGION(best, out = pathfinder(cols, rows, wall, a, b));
    xapp_report(best, xapp_checksum_int(out, cols));
    free(wall); free(a); free(b);
    return 0;
}
