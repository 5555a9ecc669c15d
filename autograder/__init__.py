"""autograder: the hidden tests and the grading tools (instructors only; never released).

Rooms, from the bottom up; a module imports only from its own room or the rooms below it:
``course`` (facts and paths), ``hidden_tests`` (cases, run, judge, mistakes), ``isolation``
(the sandbox every run of student code goes through, kernel homes), ``nbgrader_steps``
(nbgrader plug-ins, judging answers outside the kernel among them), ``reports`` (summary,
grades.csv), ``grading`` (grade a class), ``release`` (the student bundle).
"""
