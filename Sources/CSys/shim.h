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
/* glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (setting either ends their dynamic adjustment):
   1 when both were taken. */
static inline int tb_set_malloc_thresholds(int mmap_bytes, int trim_bytes) {
    return mallopt(M_MMAP_THRESHOLD, mmap_bytes) == 1 && mallopt(M_TRIM_THRESHOLD, trim_bytes) == 1;
}
/* accept4 and pipe2 are GNU extensions the Swift Glibc module does not show (declared here
   rather than through _GNU_SOURCE, which would make this module's fd_set differ from Glibc's). */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
extern int pipe2(int fds[2], int flags);
static inline int tb_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
static inline int tb_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
/* CPU affinity (sched_getaffinity and sched_setaffinity are GNU: declared here as accept4 is).
   The calling thread's mask, which taskset and systemd's CPUAffinity= set, and which a thread
   passes to the threads and processes it starts. */
#include <sched.h>
extern int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask);
extern int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask);
/* How many CPUs the calling thread may run on; 0 when the kernel does not say. */
static inline int tb_affinity_cpu_count(void) {
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) != 0) return 0;
    int n = 0;
    for (size_t i = 0; i < sizeof s.__bits / sizeof s.__bits[0]; i++) n += __builtin_popcountl(s.__bits[i]);
    return n;
}
/* Narrows the calling thread's mask to its first n CPUs (lowest numbers); returns how many it
   keeps (fewer when the mask had fewer), or -1 on error. */
static inline int tb_affinity_keep_first(int n) {
    cpu_set_t s, keep;
    if (n < 1 || sched_getaffinity(0, sizeof s, &s) != 0) return -1;
    __builtin_memset(&keep, 0, sizeof keep);
    int kept = 0;
    const int bits = (int)(8 * sizeof s.__bits[0]);
    for (int cpu = 0; cpu < (int)(8 * sizeof s) && kept < n; cpu++) {
        if (s.__bits[cpu / bits] & (1UL << (cpu % bits))) { keep.__bits[cpu / bits] |= 1UL << (cpu % bits); kept++; }
    }
    if (kept == 0 || sched_setaffinity(0, sizeof keep, &keep) != 0) return -1;
    return kept;
}
#endif
