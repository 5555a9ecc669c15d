"""Mutation testing of the hidden tests: mutmut mutates the reference answers of the five
exercises, and each mutant is graded by the hidden checker and, separately, by the visible
example cells (``make mutants``; ``tests/test_mutants.py`` keeps the equivalent list honest).

But: nothing here is imported by the grading code or shipped to students.
"""
