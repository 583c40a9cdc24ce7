#ifndef TOUCHBRIDGE_CEVDEV_SHIM_H
#define TOUCHBRIDGE_CEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>

/* Function-like ioctl macros are not imported into Swift: wrap each one. */
static inline int tb_evdev_grab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, (void *)(long)grab); }
static inline int tb_evdev_get_name(int fd, char *buf, int len) { return ioctl(fd, EVIOCGNAME(len), buf); }
static inline int tb_evdev_get_props(int fd, unsigned char *buf, int len) { return ioctl(fd, EVIOCGPROP(len), buf); }
static inline int tb_evdev_get_bits(int fd, int ev, unsigned char *buf, int len) { return ioctl(fd, EVIOCGBIT(ev, len), buf); }
static inline int tb_evdev_get_absinfo(int fd, int axis, struct input_absinfo *info) { return ioctl(fd, EVIOCGABS(axis), info); }
static inline int tb_evdev_get_id(int fd, struct input_id *id) { return ioctl(fd, EVIOCGID, id); }
#endif
