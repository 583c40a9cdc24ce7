#ifndef TOUCHBRIDGE_CPNG_SHIM_H
#define TOUCHBRIDGE_CPNG_SHIM_H
/* libpng reports errors by longjmp; Swift cannot setjmp, so the one call the tile decoder needs
   lives here. It reads a palette PNG (colour type 3) the way cairo's PNG reader reads every PNG
   (same libpng, same error and warning handling: errors fail, warnings are ignored) but keeps
   the palette indices packed as stored instead of expanding them to 4-byte pixels. */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tb_png_reader {
    const unsigned char *data;
    size_t size, offset;
    char message[200];
};

static void tb_png_read(png_structp png, png_bytep out, png_size_t length) {
    struct tb_png_reader *r = (struct tb_png_reader *)png_get_io_ptr(png);
    if (length > r->size - r->offset) png_error(png, "the data ends early");
    memcpy(out, r->data + r->offset, length);
    r->offset += length;
}

static void tb_png_error(png_structp png, png_const_charp message) {
    struct tb_png_reader *r = (struct tb_png_reader *)png_get_error_ptr(png);
    snprintf(r->message, sizeof r->message, "%s", message ? message : "libpng error");
    longjmp(png_jmpbuf(png), 1);
}

static void tb_png_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

/* Decodes a palette PNG whose IHDR the caller read (width, height, bit depth 1, 2, 4 or 8):
   rows of packed indices (PNG's order, most significant bits first) `rowBytes` apart into
   `rows` (height x rowBytes bytes), the palette as R, G, B triples into `rgb` (768 bytes) and
   its entry count, the tRNS alphas into `alpha` (256 bytes) and their count (-1: no tRNS).
   Returns 0, or -1 with libpng's message. */
static inline int tb_png_read_palette(const unsigned char *data, unsigned long size, unsigned char *rows,
                                      int width, int height, int depth, unsigned long rowBytes,
                                      unsigned char *rgb, int *numPalette, unsigned char *alpha, int *numTrans,
                                      char *message, int messageSize) {
    struct tb_png_reader reader = { data, size, 0, "" };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, tb_png_error, tb_png_warning);
    if (!png) { snprintf(message, (size_t)messageSize, "no memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    png_bytep *volatile pointers = NULL;
    if (!info) { png_destroy_read_struct(&png, NULL, NULL); snprintf(message, (size_t)messageSize, "no memory"); return -1; }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(message, (size_t)messageSize, "%s", reader.message);
        free(pointers);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_read_fn(png, &reader, tb_png_read);
    png_read_info(png, info);
    png_uint_32 w, h;
    int d, colorType, interlace;
    png_get_IHDR(png, info, &w, &h, &d, &colorType, &interlace, NULL, NULL);
    if ((int)w != width || (int)h != height || d != depth || colorType != PNG_COLOR_TYPE_PALETTE)
        png_error(png, "the header changed between reads");
    if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != rowBytes) png_error(png, "unexpected row size");
    pointers = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)height);
    if (!pointers) png_error(png, "no memory");
    for (int y = 0; y < height; y++) pointers[y] = rows + (size_t)y * rowBytes;
    png_read_image(png, pointers);
    png_read_end(png, info);
    png_colorp palette = NULL;
    int n = 0;
    memset(rgb, 0, 768);
    if (png_get_PLTE(png, info, &palette, &n) == 0) n = 0;
    for (int i = 0; i < n && i < 256; i++) {
        rgb[3 * i] = palette[i].red; rgb[3 * i + 1] = palette[i].green; rgb[3 * i + 2] = palette[i].blue;
    }
    *numPalette = n;
    *numTrans = -1;
    if (png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_bytep trans = NULL;
        int t = 0;
        png_get_tRNS(png, info, &trans, &t, NULL);
        memset(alpha, 255, 256);
        for (int i = 0; i < t && i < 256; i++) alpha[i] = trans[i];
        *numTrans = t;
    }
    free(pointers);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
#endif
