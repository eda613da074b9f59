"""Helpers shared by the test suite and the benchmarks."""
