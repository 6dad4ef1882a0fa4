"""Benchmarks that live outside the package (not installed, not run by CI)."""
