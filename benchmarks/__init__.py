"""Scripts that print a measured comparison in one run (docs/benchmarks.md). Not installed: run each from the
repository root as ``python -m benchmarks.<name>``, so they import each other (``benchmarks.synthetic_gt``) and
the test servers of ``tests/support/``."""
