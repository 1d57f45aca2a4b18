// tests/shim/host_chrono.cc - what tests/shim/host-clock.sh runs under
// `p2psim run` when a C++ compiler is found: std::chrono's clocks around
// cudaEventRecord (whose cost the script sets) and
// std::this_thread::sleep_for read the thread's simulated clock.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <thread>

static long long ns(std::chrono::nanoseconds d)
{
    return static_cast<long long>(d.count());
}

int main()
{
    using namespace std::chrono;
    cudaEvent_t e;
    if (cudaEventCreate(&e) != cudaSuccess) {
        return 1;
    }
    auto t0 = steady_clock::now();
    cudaEventRecord(e, 0);
    auto t1 = steady_clock::now();
    std::printf("steady_clock: %lld ns\n", ns(t1 - t0));
    auto s0 = system_clock::now();
    cudaEventRecord(e, 0);
    auto s1 = system_clock::now();
    std::printf("system_clock: %lld ns\n",
                ns(duration_cast<nanoseconds>(s1 - s0)));
    t0 = steady_clock::now();
    std::this_thread::sleep_for(milliseconds(5));
    std::printf("sleep_for: %lld ns\n", ns(steady_clock::now() - t0));
    cudaEventDestroy(e);
    return 0;
}
