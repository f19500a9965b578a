"""Benchmarks behind every figure of docs/performance.md; a package only so that tests can import them."""
