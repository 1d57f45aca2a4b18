#!/bin/sh
# fast.sh - make check's share of the real programs: the samples of
# tests/real/manifest's fast set (a few that build and run in seconds),
# through run.sh --fast; skipped (77), and said so, without nvcc, cmake or
# the cuda-samples tarball, as on CI.  make check-real runs all of them.
exec "${top_srcdir:-.}/tests/real/run.sh" --fast
