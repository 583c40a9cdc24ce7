#ifndef TOUCHBRIDGE_CCAIRO_SHIM_H
#define TOUCHBRIDGE_CCAIRO_SHIM_H
#include <cairo.h>
#include <pango/pangocairo.h>
/* PANGO_SCALE is a macro Swift imports, but keep a function for clarity. */
static inline int tb_pango_scale(void) { return PANGO_SCALE; }
/* Asks for the cache line at p ahead of a write to it (the frame's pixels under a sprite or a
 * line: a load of a line not in cache stalls the blend; prefetches of many lines overlap). */
static inline void tb_prefetch_write(const void *p) { __builtin_prefetch(p, 1, 3); }
/* Double to integer by truncation, without Swift's range check (a compare and a branch to a
 * trap in each pixel loop): only for values known to be in range (the caller's precondition:
 * |x| < 2^62 for tb_trunc, 0 <= x < 256 for tb_trunc_u8). The same value as Int(x), UInt8(x). */
static inline long tb_trunc(double x) { return (long)x; }
static inline unsigned char tb_trunc_u8(double x) { return (unsigned char)(int)x; }
/* The same for a float, 0 <= x < 256: UInt8(x). */
static inline unsigned char tb_trunc_u8f(float x) { return (unsigned char)(int)x; }
#endif
