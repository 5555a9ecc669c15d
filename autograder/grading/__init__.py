"""Grading a class: one submission with nbgrader, the worker pool, the gradebook rows."""
