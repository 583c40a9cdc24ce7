#ifndef TOUCHBRIDGE_CJPEG_SHIM_H
#define TOUCHBRIDGE_CJPEG_SHIM_H
/* libjpeg reports errors by calling error_exit, which by default ends the process; Swift cannot
   setjmp, so the two calls a tile decoder needs live here with an error handler that longjmps
   back and returns -1 with the library's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

struct tb_jpeg_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void tb_jpeg_error_exit(j_common_ptr cinfo) {
    struct tb_jpeg_error *e = (struct tb_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void tb_jpeg_silence(j_common_ptr cinfo) { (void)cinfo; }

/* Reads the header only: width and height, or -1 with a message. */
static inline int tb_jpeg_size(const unsigned char *data, unsigned long size, int *width, int *height,
                               char *message, int messageSize) {
    struct jpeg_decompress_struct cinfo;
    struct tb_jpeg_error err;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = tb_jpeg_error_exit;
    err.mgr.output_message = tb_jpeg_silence;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        snprintf(message, (size_t)messageSize, "%s", err.message);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    *width = (int)cinfo.image_width;
    *height = (int)cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

/* Decodes into 32-bit pixels in cairo's RGB24 byte order (B, G, R, X on little-endian machines)
   with rows `stride` bytes apart; the caller allocated width x height from tb_jpeg_size.
   Returns 0, or -1 with a message. */
static inline int tb_jpeg_decode_bgrx(const unsigned char *data, unsigned long size, unsigned char *out,
                                      int width, int height, int stride, char *message, int messageSize) {
    struct jpeg_decompress_struct cinfo;
    struct tb_jpeg_error err;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = tb_jpeg_error_exit;
    err.mgr.output_message = tb_jpeg_silence;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        snprintf(message, (size_t)messageSize, "%s", err.message);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    if ((int)cinfo.image_width != width || (int)cinfo.image_height != height) {
        snprintf(message, (size_t)messageSize, "size changed between header reads");
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    cinfo.out_color_space = JCS_EXT_BGRX;
#else
    cinfo.out_color_space = JCS_EXT_XRGB;
#endif
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out + (size_t)cinfo.output_scanline * (size_t)stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
#endif
