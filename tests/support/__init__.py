"""Fixtures shared by the tests and the benchmarks: synthetic students, scratch courses, and
the catalogue of right, wrong and cheating answers."""
