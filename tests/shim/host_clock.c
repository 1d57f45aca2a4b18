/*
 * tests/shim/host_clock.c - what tests/shim/host-clock.sh runs under
 * `p2psim run`: the program's own clocks around operations whose
 * simulated cost the script sets, sleeps, and a main thread that waits
 * outside CUDA for a stream callback.
 *
 *   host_clock clock    deltas of clock_gettime, gettimeofday around
 *                       cudaEventRecord (the script sets its cost), of
 *                       usleep, nanosleep, clock_nanosleep and sleep; time()
 *                       against CLOCK_REALTIME
 *   host_clock cond     main waits on a condition variable that a host
 *                       function signals; prints its clock once woken
 *   host_clock barrier  the same with a pthread barrier
 *   host_clock spin     main spins reading its clock until a host function
 *                       sets a flag
 *   host_clock timed    a pthread_cond_timedwait 5 ms ahead that nobody
 *                       signals times out 5 ms later in simulated time
 */
#define _DEFAULT_SOURCE /* usleep; POSIX clocks, barriers */
#define _POSIX_C_SOURCE 200809L

#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

static int clocks(void)
{
    cudaEvent_t e;
    if (cudaEventCreate(&e) != cudaSuccess) {
        return 1;
    }
    long long t0 = mono_ns();
    cudaEventRecord(e, 0);
    long long t1 = mono_ns();
    printf("record: %lld ns\n", t1 - t0);
    long long u0 = wall_us();
    for (int i = 0; i < 3; i++) {
        cudaEventRecord(e, 0);
    }
    printf("gettimeofday: %lld us\n", wall_us() - u0);
    t0 = mono_ns();
    usleep(1500);
    printf("usleep: %lld ns\n", mono_ns() - t0);
    t0 = mono_ns();
    struct timespec d = { 0, 2000000 };
    nanosleep(&d, NULL);
    printf("nanosleep: %lld ns\n", mono_ns() - t0);
    t0 = mono_ns();
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    now.tv_sec += 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &now, NULL);
    printf("clock_nanosleep: %lld ns\n", mono_ns() - t0);
    t0 = mono_ns();
    sleep(3);
    printf("sleep: %lld ns\n", mono_ns() - t0);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    time_t s = time(NULL);
    printf("time: %s\n", s == rt.tv_sec ? "as CLOCK_REALTIME" : "differs");
    cudaEventDestroy(e);
    return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static volatile int done;

static void CUDART_CB signal_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

static void CUDART_CB meet_main(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&barrier);
}

static void CUDART_CB set_flag(void *arg)
{
    (void)arg;
    done = 1;
}

static int timed(void)
{
    if (cudaFree(0) != cudaSuccess) {
        return 1;
    }
    struct timespec abs;
    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_nsec += 5000000;
    if (abs.tv_nsec >= 1000000000L) {
        abs.tv_sec++;
        abs.tv_nsec -= 1000000000L;
    }
    long long t0 = mono_ns();
    pthread_mutex_lock(&lock);
    int r = pthread_cond_timedwait(&cond, &lock, &abs);
    pthread_mutex_unlock(&lock);
    printf("timedwait: %s after %lld ns\n",
           r == ETIMEDOUT ? "timed out" : "woken", mono_ns() - t0);
    return 0;
}

static int spin(void)
{
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess) {
        return 1;
    }
    cudaLaunchHostFunc(s, set_flag, NULL);
    unsigned long long reads = 0;
    while (!done) {
        mono_ns();
        reads++;
    }
    printf("spun: %s\n", reads ? "flag seen" : "no read");
    cudaStreamDestroy(s);
    return 0;
}

static int wait_outside(bool use_barrier)
{
    enum { N = 1 << 20 };
    static char host[N];
    void *dev;
    cudaStream_t s;
    if (cudaMalloc(&dev, N) != cudaSuccess ||
        cudaStreamCreate(&s) != cudaSuccess) {
        return 1;
    }
    pthread_barrier_init(&barrier, NULL, 2);
    long long t0 = mono_ns();
    cudaMemcpyAsync(dev, host, N, cudaMemcpyHostToDevice, s);
    cudaLaunchHostFunc(s, use_barrier ? meet_main : signal_main, NULL);
    if (use_barrier) {
        pthread_barrier_wait(&barrier);
    } else {
        pthread_mutex_lock(&lock);
        while (!done) {
            pthread_cond_wait(&cond, &lock);
        }
        pthread_mutex_unlock(&lock);
    }
    printf("woken after: %lld ns\n", mono_ns() - t0);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    cudaFree(dev);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clock";
    if (strcmp(mode, "clock") == 0) {
        return clocks();
    }
    if (strcmp(mode, "spin") == 0) {
        return spin();
    }
    if (strcmp(mode, "timed") == 0) {
        return timed();
    }
    return wait_outside(strcmp(mode, "barrier") == 0);
}
