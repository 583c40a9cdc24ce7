#ifndef TOUCHBRIDGE_CSYS_SHIM_H
#define TOUCHBRIDGE_CSYS_SHIM_H
/* Linux event-loop system calls that Glibc's Swift module does not export. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>
static inline int tb_epoll_event_fd(const struct epoll_event *e) { return e->data.fd; }
static inline unsigned int tb_epoll_event_flags(const struct epoll_event *e) { return e->events; }
static inline void tb_epoll_event_set(struct epoll_event *e, unsigned int events, int fd) { e->events = events; e->data.fd = fd; }
/* glibc's M_ARENA_MAX (a macro, and mallopt is not in Glibc's Swift module). */
static inline int tb_set_malloc_arena_max(int n) { return mallopt(M_ARENA_MAX, n); }
/* accept4 and pipe2 are GNU extensions the Swift Glibc module does not show (declared here
   rather than through _GNU_SOURCE, which would make this module's fd_set differ from Glibc's). */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
extern int pipe2(int fds[2], int flags);
static inline int tb_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
static inline int tb_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
#endif
