"""autograder: the hidden tests and the grading tools (instructors only; never released).

Rooms, from the bottom up; a module imports only from its own room or the rooms below it
(``tests/test_layout.py`` holds them to it): ``course`` with ``roster``, ``cells`` and
``problems`` beside it, ``hidden_tests``, ``sandbox``, ``plugins``, ``reports``,
``formgrader``, ``grading``, ``release``, and on top ``cli``. Each room's docstring says what
it holds; docs/guides/architecture.md names every module with one line.
"""
