#ifndef TOUCHBRIDGE_CCAIRO_SHIM_H
#define TOUCHBRIDGE_CCAIRO_SHIM_H
#include <cairo.h>
#include <pango/pangocairo.h>
/* PANGO_SCALE is a macro Swift imports, but keep a function for clarity. */
static inline int tb_pango_scale(void) { return PANGO_SCALE; }
/* Asks for the cache line at p ahead of a write to it (the frame's pixels under a sprite or a
 * line: a load of a line not in cache stalls the blend; prefetches of many lines overlap). */
static inline void tb_prefetch_write(const void *p) { __builtin_prefetch(p, 1, 3); }
#endif
