"""Benchmarks behind every figure in the README (``make bench``); a package only so that tests can import them."""
