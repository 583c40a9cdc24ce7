#ifndef TOUCHBRIDGE_CSYS_SHIM_H
#define TOUCHBRIDGE_CSYS_SHIM_H
/* Linux event-loop system calls that Glibc's Swift module does not export. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
static inline int tb_epoll_event_fd(const struct epoll_event *e) { return e->data.fd; }
static inline unsigned int tb_epoll_event_flags(const struct epoll_event *e) { return e->events; }
static inline void tb_epoll_event_set(struct epoll_event *e, unsigned int events, int fd) { e->events = events; e->data.fd = fd; }
/* glibc's M_ARENA_MAX (a macro, and mallopt is not in Glibc's Swift module). */
static inline int tb_set_malloc_arena_max(int n) { return mallopt(M_ARENA_MAX, n); }
#endif
