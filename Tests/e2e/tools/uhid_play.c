/* uhid_play: a real HID touchscreen for the kiosk VM tests (test_live_replay.py).
 *
 * Creates a /dev/uhid device from a report descriptor (the kernel's hid-multitouch binds to
 * it and makes an evdev node), waits until GO_FILE exists (it holds the pid of the process to
 * starve), then plays a timeline with CLOCK_MONOTONIC absolute sleeps:
 *
 *   name TEXT                    device name (first line)
 *   ids BUS VENDOR PRODUCT       hex vendor/product
 *   rdesc HEX HEX ...            the report descriptor
 *   T r HEX HEX ...              at T seconds: one input report (UHID_INPUT2)
 *   T stop                       at T: SIGSTOP the pid
 *   T cont                       at T: SIGCONT the pid
 *   T mark TEXT                  at T: print TEXT (with the real time) on stdout
 *
 * Lines are in time order. GET_REPORT requests are answered with EIO (hid-multitouch then
 * takes Contact Max from the descriptor) and SET_REPORT with success, while waiting and
 * playing. After the timeline it prints "done", waits until QUIT_FILE exists, destroys the
 * device and exits. Always SIGCONTs the pid before leaving.
 *
 * Usage: uhid_play TIMELINE GO_FILE QUIT_FILE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int uhid = -1;
static pid_t victim = 0;
static int stopped = 0;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    if (victim > 0 && stopped) kill(victim, SIGCONT);
    fprintf(stderr, "uhid_play: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void write_event(struct uhid_event *ev) {
    if (write(uhid, ev, sizeof(*ev)) != sizeof(*ev)) die("write /dev/uhid");
}

/* Answers the kernel's requests (feature reports during probe). */
static void service(void) {
    for (;;) {
        struct uhid_event ev;
        ssize_t n = read(uhid, &ev, sizeof(ev));
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            die("read /dev/uhid");
        }
        if (n == 0) return;
        struct uhid_event reply;
        memset(&reply, 0, sizeof(reply));
        if (ev.type == UHID_GET_REPORT) {
            reply.type = UHID_GET_REPORT_REPLY;
            reply.u.get_report_reply.id = ev.u.get_report.id;
            reply.u.get_report_reply.err = EIO;
            write_event(&reply);
        } else if (ev.type == UHID_SET_REPORT) {
            reply.type = UHID_SET_REPORT_REPLY;
            reply.u.set_report_reply.id = ev.u.set_report.id;
            reply.u.set_report_reply.err = 0;
            write_event(&reply);
        }
    }
}

/* Sleeps until the absolute time t, answering the kernel meanwhile. */
static void wait_until(double t) {
    for (;;) {
        double left = t - now();
        if (left <= 0) return;
        struct pollfd p = {uhid, POLLIN, 0};
        int ms = left > 0.002 ? (int)((left - 0.001) * 1000) : 0;
        if (ms > 0) {
            if (poll(&p, 1, ms) > 0) service();
        } else {
            struct timespec ts;
            ts.tv_sec = (time_t)t;
            ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
    }
}

static size_t parse_hex(char *s, unsigned char *out, size_t max) {
    size_t n = 0;
    for (char *tok = strtok(s, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
        out[n++] = (unsigned char)strtoul(tok, NULL, 16);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: uhid_play TIMELINE GO_FILE QUIT_FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) die(argv[1]);
    static char line[65536];
    struct uhid_event create;
    memset(&create, 0, sizeof(create));
    create.type = UHID_CREATE2;
    long body = 0;
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "name ", 5)) {
            line[strcspn(line, "\n")] = 0;
            snprintf((char *)create.u.create2.name, sizeof(create.u.create2.name), "%.127s", line + 5);
        } else if (!strncmp(line, "ids ", 4)) {
            unsigned bus, vendor, product;
            if (sscanf(line + 4, "%x %x %x", &bus, &vendor, &product) != 3) { fprintf(stderr, "uhid_play: bad ids line\n"); return 2; }
            create.u.create2.bus = bus; create.u.create2.vendor = vendor; create.u.create2.product = product;
        } else if (!strncmp(line, "rdesc ", 6)) {
            create.u.create2.rd_size = parse_hex(line + 6, create.u.create2.rd_data, HID_MAX_DESCRIPTOR_SIZE);
            body = ftell(f);
            break;
        }
    }
    if (!create.u.create2.rd_size) { fprintf(stderr, "uhid_play: %s has no rdesc line\n", argv[1]); return 2; }

    uhid = open("/dev/uhid", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (uhid < 0) die("open /dev/uhid");
    write_event(&create);
    printf("created %s\n", create.u.create2.name);
    fflush(stdout);

    /* The go file: the pid to starve (0: none). */
    struct stat st;
    while (stat(argv[2], &st) != 0) wait_until(now() + 0.02);
    FILE *g = fopen(argv[2], "r");
    if (!g || fscanf(g, "%d", &victim) != 1) victim = 0;
    if (g) fclose(g);

    double t0 = now() + 0.05;
    fseek(f, body, SEEK_SET);
    while (fgets(line, sizeof(line), f)) {
        double t;
        char kind[16];
        int used = 0;
        if (sscanf(line, "%lf %15s %n", &t, kind, &used) < 2) continue;
        wait_until(t0 + t);
        if (!strcmp(kind, "r")) {
            struct uhid_event ev;
            memset(&ev, 0, sizeof(ev));
            ev.type = UHID_INPUT2;
            ev.u.input2.size = parse_hex(line + used, ev.u.input2.data, UHID_DATA_MAX);
            write_event(&ev);
        } else if (!strcmp(kind, "stop")) {
            if (victim > 0 && kill(victim, SIGSTOP) == 0) stopped = 1;
            printf("stop %.4f (late %.1f ms)\n", now() - t0, (now() - t0 - t) * 1000);
        } else if (!strcmp(kind, "cont")) {
            if (victim > 0) kill(victim, SIGCONT);
            stopped = 0;
            printf("cont %.4f (late %.1f ms)\n", now() - t0, (now() - t0 - t) * 1000);
        } else if (!strcmp(kind, "mark")) {
            line[strcspn(line, "\n")] = 0;
            printf("mark %.4f %s\n", now() - t0, line + used);
        }
        fflush(stdout);
    }
    if (victim > 0 && stopped) kill(victim, SIGCONT);
    printf("done %.4f\n", now() - t0);
    fflush(stdout);
    while (stat(argv[3], &st) != 0) wait_until(now() + 0.05);
    struct uhid_event destroy;
    memset(&destroy, 0, sizeof(destroy));
    destroy.type = UHID_DESTROY;
    write_event(&destroy);
    close(uhid);
    return 0;
}
