"""Made-up classes the tests and the benches both grade: answers, courses, submissions, clusters.

But: nothing a student or an instructor runs imports it; only tests/ and bench/ do.
"""
