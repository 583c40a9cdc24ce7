#ifndef TOUCHBRIDGE_CCAIRO_SHIM_H
#define TOUCHBRIDGE_CCAIRO_SHIM_H
#include <cairo.h>
#include <pango/pangocairo.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* PANGO_SCALE is a macro Swift imports, but keep a function for clarity. */
static inline int tb_pango_scale(void) { return PANGO_SCALE; }
/* Asks for the cache line at p ahead of a write to it (the frame's pixels under a sprite or a
 * line: a load of a line not in cache stalls the blend; prefetches of many lines overlap). */
static inline void tb_prefetch_write(const void *p) { __builtin_prefetch(p, 1, 3); }
static inline void tb_prefetch_read(const void *p) { __builtin_prefetch(p, 0, 3); }
/* Double to integer by truncation, without Swift's range check (a compare and a branch to a
 * trap in each pixel loop): only for values known to be in range (the caller's precondition:
 * |x| < 2^62 for tb_trunc, 0 <= x < 256 for tb_trunc_u8). The same value as Int(x), UInt8(x). */
static inline long tb_trunc(double x) { return (long)x; }
static inline unsigned char tb_trunc_u8(double x) { return (unsigned char)(int)x; }
/* The same for a float, 0 <= x < 256: UInt8(x). */
static inline unsigned char tb_trunc_u8f(float x) { return (unsigned char)(int)x; }
/* Copies n bytes from src to dst (not overlapping) with stores that go around the CPU's caches
 * (SSE2's non-temporal stores, a whole 64-byte line of dst at a time; memcpy for the partial
 * lines at the ends, and everywhere without SSE2: a streaming store of part of a line is
 * slow). For a frame's worth of pixels that the copy only writes: an ordinary store first
 * reads each line of dst into the cache. A thread that copies so calls tb_store_fence before
 * another thread may read what it wrote. */
static inline void tb_copy_streaming(void *dst, const void *src, unsigned long n) {
#if defined(__SSE2__)
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    unsigned long head = (64 - ((unsigned long)d & 63)) & 63;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head; s += head; n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a); _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c); _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}
/* Stores the pixel v over n pixels at dst: streaming stores (as tb_copy_streaming) for the
 * whole 64-byte lines, plain ones at the ends. */
static inline void tb_fill_streaming(unsigned int *dst, unsigned int v, unsigned long n) {
#if defined(__SSE2__)
    unsigned long head = ((64 - ((unsigned long)dst & 63)) & 63) / 4;
    if (head > n) head = n;
    for (unsigned long i = 0; i < head; i++) dst[i] = v;
    dst += head; n -= head;
    __m128i x = _mm_set1_epi32((int)v);
    for (; n >= 16; n -= 16, dst += 16) {
        _mm_stream_si128((__m128i *)dst, x); _mm_stream_si128((__m128i *)(dst + 4), x);
        _mm_stream_si128((__m128i *)(dst + 8), x); _mm_stream_si128((__m128i *)(dst + 12), x);
    }
    for (unsigned long i = 0; i < n; i++) dst[i] = v;
#else
    for (unsigned long i = 0; i < n; i++) dst[i] = v;
#endif
}
/* Stores n pixels at dst taken from line at fu, fu + du, fu + 2 du, ... (32.32 fixed point:
 * pixel fu >> 32): the ground cache's warp of a span that reads one cache row. Streaming
 * stores (as tb_copy_streaming) for the whole 64-byte lines, plain ones at the ends. Every
 * index the caller's to bound. */
static inline void tb_gather_streaming(unsigned int *dst, const unsigned int *line, long fu, long du, unsigned long n) {
#if defined(__SSE2__)
    unsigned long head = ((64 - ((unsigned long)dst & 63)) & 63) / 4;
    if (head > n) head = n;
    for (unsigned long i = 0; i < head; i++, fu += du) dst[i] = line[fu >> 32];
    dst += head; n -= head;
    for (; n >= 16; n -= 16, dst += 16) {
        for (int k = 0; k < 16; k += 4) {
            unsigned int a = line[fu >> 32], b = line[(fu + du) >> 32], c = line[(fu + 2 * du) >> 32], d = line[(fu + 3 * du) >> 32];
            _mm_stream_si128((__m128i *)(dst + k), _mm_set_epi32((int)d, (int)c, (int)b, (int)a));
            fu += 4 * du;
        }
    }
    for (unsigned long i = 0; i < n; i++, fu += du) dst[i] = line[fu >> 32];
#else
    for (unsigned long i = 0; i < n; i++, fu += du) dst[i] = line[fu >> 32];
#endif
}
/* As tb_gather_streaming, from anywhere in an image of `words` pixels a row: pixel n of the
 * span from row (fv + n dv) >> 32, column (fu + n du) >> 32 (a span of a turned map's warp). */
static inline void tb_gather2_streaming(unsigned int *dst, const unsigned int *src, long words, long fu, long fv,
                                        long du, long dv, unsigned long n) {
#define TB_AT(i) src[((fv + (i) * dv) >> 32) * words + ((fu + (i) * du) >> 32)]
#if defined(__SSE2__)
    unsigned long head = ((64 - ((unsigned long)dst & 63)) & 63) / 4;
    if (head > n) head = n;
    for (unsigned long i = 0; i < head; i++, fu += du, fv += dv) dst[i] = TB_AT(0);
    dst += head; n -= head;
    for (; n >= 16; n -= 16, dst += 16) {
        for (int k = 0; k < 16; k += 4) {
            unsigned int a = TB_AT(0), b = TB_AT(1), c = TB_AT(2), d = TB_AT(3);
            _mm_stream_si128((__m128i *)(dst + k), _mm_set_epi32((int)d, (int)c, (int)b, (int)a));
            fu += 4 * du; fv += 4 * dv;
        }
    }
#endif
    for (unsigned long i = 0; i < n; i++, fu += du, fv += dv) dst[i] = TB_AT(0);
#undef TB_AT
}
/* Orders the streaming stores before what follows (after tb_copy_streaming, before the copy is
 * handed on). */
static inline void tb_store_fence(void) {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
#endif
