# bench/: benchmarks. `make bench` runs them all.
