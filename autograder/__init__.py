"""autograder: the hidden tests and the grading tools (instructors only; never released).

Rooms, from the bottom up; a module imports only from its own room or the rooms below it
(``tests/test_layout.py`` holds them to it): ``course`` (facts and paths), ``shared`` (a
finding's record, reading cells, math as MathML), ``hidden_tests`` (cases, run, judge,
mistakes), ``sandbox`` (all that confines or distrusts student code: bwrap, the kernels'
jail, the judge's runner, trusted paths, the safe walker), ``plugins`` (the classes
nbgrader loads, alone), ``reports`` (summary, grades.csv, the LMS files), ``formgrader`` (the
Formgrader's extension), ``grading`` (grade a class), ``release`` (the student bundle,
the solutions), and on top ``cli`` (``python -m autograder <command>``: one parser for every
grading command). ``roster`` sits beside ``course``.
"""
