#ifndef TOUCHBRIDGE_CDRM_SHIM_H
#define TOUCHBRIDGE_CDRM_SHIM_H
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/fb.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/* Function-like ioctl macros are not imported into Swift: wrap each one. */
static inline int tb_drm_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t bpp,
                                     uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb creq;
    memset(&creq, 0, sizeof creq);
    creq.width = width; creq.height = height; creq.bpp = bpp;
    int r = drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &creq);
    if (r == 0) { *handle = creq.handle; *pitch = creq.pitch; *size = creq.size; }
    return r;
}
static inline int tb_drm_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb mreq;
    memset(&mreq, 0, sizeof mreq);
    mreq.handle = handle;
    int r = drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &mreq);
    if (r == 0) *offset = mreq.offset;
    return r;
}
static inline int tb_drm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb dreq;
    memset(&dreq, 0, sizeof dreq);
    dreq.handle = handle;
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &dreq);
}
static inline int tb_fb_get_vscreeninfo(int fd, struct fb_var_screeninfo *v) { return ioctl(fd, FBIOGET_VSCREENINFO, v); }
static inline int tb_fb_put_vscreeninfo(int fd, struct fb_var_screeninfo *v) { return ioctl(fd, FBIOPUT_VSCREENINFO, v); }
static inline int tb_fb_get_fscreeninfo(int fd, struct fb_fix_screeninfo *f) { return ioctl(fd, FBIOGET_FSCREENINFO, f); }
static inline int tb_fb_pan_display(int fd, struct fb_var_screeninfo *v) { return ioctl(fd, FBIOPAN_DISPLAY, v); }
#endif
