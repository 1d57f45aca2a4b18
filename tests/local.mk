# tests/: Check suites, one runner per layer.
