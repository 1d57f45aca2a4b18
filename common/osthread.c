/*
 * common/osthread.c - the kernel's view of this process's threads,
 * read from /proc/self/task (see osthread.h).
 */
#include <config.h>

#include "common/osthread.h"
#include "common/realclock.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

pid_t osthread_self(void)
{
#ifdef SYS_gettid
    return (pid_t)syscall(SYS_gettid);
#else
    return 0;
#endif
}

/* The fields after "(comm)" of /proc/self/task/TID/stat into buf; returns
 * a pointer to the state letter, or NULL. comm may hold spaces and ')', so
 * the last ')' ends it. */
static const char *stat_fields(pid_t tid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0) {
        return NULL;
    }
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2]) {
        return NULL;
    }
    return p + 2;
}

bool osthread_runnable(pid_t tid)
{
    char buf[512];
    const char *s = tid > 0 ? stat_fields(tid, buf, sizeof(buf)) : NULL;
    return s && (*s == 'R' || *s == 'D');
}

uint64_t osthread_cpu_ns(pthread_t th)
{
    clockid_t c;
    struct timespec ts;
    if (pthread_getcpuclockid(th, &c) != 0 || p2psim_real_clock_gettime(c, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool osthread_asleep_twice(struct osthread_look *l, pid_t tid, pthread_t th)
{
    uint64_t cpu = osthread_cpu_ns(th);
    if (osthread_runnable(tid)) {
        l->seen = false;
        return false;
    }
    bool twice = l->seen && l->cpu == cpu;
    l->seen = true;
    l->cpu = cpu;
    return twice;
}

uint64_t osthread_cpu_ns_tid(pid_t tid)
{
    char buf[512];
    const char *s = tid > 0 ? stat_fields(tid, buf, sizeof(buf)) : NULL;
    if (!s) {
        return 0;
    }
    /* After the state (field 3) come fields 4..13, then utime (14) and
     * stime (15), in clock ticks. */
    const char *p = strchr(s, ' ');
    unsigned long long v[12];
    for (unsigned k = 0; k < 12; k++) {
        char *end;
        v[k] = p ? strtoull(p, &end, 10) : 0;
        if (!p || end == p) {
            return 0;
        }
        p = end;
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) {
        return 0;
    }
    return (uint64_t)(v[10] + v[11]) * (1000000000u / (uint64_t)hz);
}

unsigned osthread_count(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    /* num_threads is field 20: the 18th after "(comm)", whose state is
     * field 3. */
    const char *p = strrchr(buf, ')');
    for (unsigned f = 2; p && f < 20; f++) {
        p = strchr(p + 1, ' ');
    }
    return p ? (unsigned)strtoul(p + 1, NULL, 10) : 0;
}

unsigned osthread_list(pid_t *tids, unsigned max)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        return 0;
    }
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || v <= 0) {
            continue;
        }
        if (n < max) {
            tids[n] = (pid_t)v;
        }
        n++;
    }
    closedir(d);
    return n;
}
