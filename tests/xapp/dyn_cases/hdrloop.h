/* Helper for hdrloop.c: its fill loop sits on the same line number (10) as the band of
   hdrloop.c, so matching the band by line alone would take this loop for a second copy
   of the band. Only the DIFile of the loop's debug location tells them apart. */
#ifndef HDRLOOP_H
#define HDRLOOP_H

/* fill x[0..n) with 0, 1, 2, ...
   (written out as a loop on purpose) */
static void fill(float *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = (float)i;
}

#endif
