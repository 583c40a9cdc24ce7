#ifndef TOUCHBRIDGE_CCAIRO_SHIM_H
#define TOUCHBRIDGE_CCAIRO_SHIM_H
#include <cairo.h>
#include <pango/pangocairo.h>
/* PANGO_SCALE is a macro Swift imports, but keep a function for clarity. */
static inline int tb_pango_scale(void) { return PANGO_SCALE; }
#endif
