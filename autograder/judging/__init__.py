"""Judging answers outside the kernels: the sandboxed runner and the judge around it."""
