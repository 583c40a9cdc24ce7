/* drm_steal PID SECONDS: take the display from a running DRM master and give it back, as a
 * second compositor or a VT switch would. The kiosk opened /dev/dri/card0 itself and holds
 * master on it; nothing else can become master while it does. So: duplicate the kiosk's card
 * fd into this process (pidfd_getfd: the same open file, so the same DRM file and its master
 * status), drop master on it, open the card anew (the first opener with no master becomes
 * master), show a full-screen red buffer for SECONDS, then remove it, drop master and exit.
 * Prints "taken" once the red frame is set and "released" at the end. Test tool (e2e). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int die(const char *what) { fprintf(stderr, "drm_steal: %s: %s\n", what, strerror(errno)); return 1; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: drm_steal PID SECONDS\n"); return 2; }
    int pid = atoi(argv[1]);
    double seconds = atof(argv[2]);
    char dir[64]; snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    DIR *d = opendir(dir);
    if (!d) return die("opendir /proc/PID/fd");
    int target = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[256], path[512]; snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) { link[n] = 0; if (strcmp(link, "/dev/dri/card0") == 0) { target = atoi(e->d_name); break; } }
    }
    closedir(d);
    if (target < 0) { fprintf(stderr, "drm_steal: process %d has no /dev/dri/card0 open\n", pid); return 1; }
    int pidfd = syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return die("pidfd_open");
    int theirs = syscall(SYS_pidfd_getfd, pidfd, target, 0);
    if (theirs < 0) return die("pidfd_getfd");
    if (drmDropMaster(theirs) != 0) return die("DROP_MASTER on the kiosk's fd");
    close(theirs);

    int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (fd < 0) return die("open /dev/dri/card0");
    if (drmSetMaster(fd) != 0 && errno != EINVAL) return die("SET_MASTER");
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) return die("drmModeGetResources");
    drmModeConnector *conn = NULL;
    for (int i = 0; i < res->count_connectors && !conn; i++) {
        drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
        if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0) conn = c; else if (c) drmModeFreeConnector(c);
    }
    if (!conn) { fprintf(stderr, "drm_steal: no connected connector\n"); return 1; }
    drmModeModeInfo mode = conn->modes[0];
    uint32_t crtc = res->crtcs[0];
    struct drm_mode_create_dumb creq = { .width = mode.hdisplay, .height = mode.vdisplay, .bpp = 32 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &creq) != 0) return die("CREATE_DUMB");
    uint32_t fb = 0;
    if (drmModeAddFB(fd, creq.width, creq.height, 24, 32, creq.pitch, creq.handle, &fb) != 0) return die("AddFB");
    struct drm_mode_map_dumb mreq = { .handle = creq.handle };
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &mreq) != 0) return die("MAP_DUMB");
    uint32_t *px = mmap(NULL, creq.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mreq.offset);
    if (px == MAP_FAILED) return die("mmap");
    for (uint64_t i = 0; i < creq.size / 4; i++) px[i] = 0x00ff0000; /* red, XRGB8888 */
    uint32_t cid = conn->connector_id;
    if (drmModeSetCrtc(fd, crtc, fb, 0, 0, &cid, 1, &mode) != 0) return die("SetCrtc");
    printf("taken\n"); fflush(stdout);
    usleep((useconds_t)(seconds * 1e6));
    munmap(px, creq.size);
    drmModeRmFB(fd, fb);
    struct drm_mode_destroy_dumb dreq = { .handle = creq.handle };
    drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &dreq);
    drmDropMaster(fd);
    close(fd);
    printf("released\n"); fflush(stdout);
    return 0;
}
