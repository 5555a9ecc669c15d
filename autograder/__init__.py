"""autograder: the hidden tests' checkers and the grading tools (instructors only).

It is never released to students. Hidden test cells import it at grading time, when
``nbgrader autograde`` runs with ``PYTHONPATH`` set to the course root:

- ``autograder.cases``: ``cases(name, group)``, the inputs each exercise is graded on;
- ``autograder.checks``: ``run_case``, ``judge`` and ``check``, the seam between running
  student code and judging its results;
- ``autograder.mistakes``: recognising a known mistake and writing the failure message;
- ``autograder.plain``: converting answers to plain data with exact types;
- ``autograder.synthetic``: writing made-up submissions for tests and benchmarks.

It uses ``solutions`` as the reference. Nothing a student receives imports it.
"""
