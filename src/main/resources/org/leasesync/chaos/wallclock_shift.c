/* Test aid: makes a process's wall clock run $WALLCLOCK_SHIFT seconds ahead (or behind, if negative) of
   the machine's, and nothing else: CLOCK_REALTIME (and its coarse variant), gettimeofday() and time()
   are shifted; CLOCK_MONOTONIC, CLOCK_BOOTTIME, CPU-time clocks and file times are the machine's.
   What Debian's libfaketime does with FAKETIME=+3h FAKETIME_DONT_FAKE_MONOTONIC=1, without its faults
   for a JVM (under libfaketime 0.9.10 Object.wait(timeout) returns at once and every clock read is
   13-19 times slower; see docs/reliability.md).
   Build: gcc -shared -fPIC -O2 -o libwallclock.so wallclock_shift.c -ldl
   Use:   WALLCLOCK_SHIFT=10800 LD_PRELOAD=$PWD/libwallclock.so java ... */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long shift_seconds(void) {
    static int read = 0;
    static long shift = 0;
    if (!read) {
        const char *s = getenv("WALLCLOCK_SHIFT");
        shift = s ? atol(s) : 0;
        read = 1;
    }
    return shift;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && ts && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift_seconds();
    return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
    static int (*real)(struct timeval *, void *);
    if (!real) real = dlsym(RTLD_NEXT, "gettimeofday");
    int r = real(tv, tz);
    if (r == 0 && tv) tv->tv_sec += shift_seconds();
    return r;
}

time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
