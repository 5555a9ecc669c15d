"""autograder: the hidden tests and the grading tools (instructors only; never released).

Rooms, from the bottom up; a module imports only from its own room or the rooms below it
(``tests/test_layout.py`` holds them to it): ``course`` with ``roster``, ``cells`` and
``problems`` beside it (the course's facts, the class list, reading cells, a finding about a
submission), ``hidden_tests`` (cases, right or wrong, the checker), ``sandbox`` (all that
confines or distrusts student code: bwrap and its syscall filter, the kernels' jail, the judge
and its child, trusted paths, the safe walker), ``plugins`` (the classes nbgrader loads, alone),
``reports`` (summary, grades.csv, the LMS files), ``formgrader`` (the Formgrader's extension),
``grading`` (grade a class), ``release`` (the student bundle, the solutions), and on top
``cli`` (``python -m autograder <command>``: one parser for every grading command).
docs/guides/architecture.md names every module with one line.
"""
