"""autograder: the hidden tests and the grading tools (instructors only; never released).

Rooms, from the bottom up; a module imports only from its own room or the rooms below it:
``course`` (facts and paths), ``hidden_tests`` (cases, run, judge, mistakes: the only part a
grading kernel imports), ``nbgrader_steps`` (nbgrader plug-ins), ``isolation`` (jail, sandbox,
kernel homes), ``reports`` (summary, grades.csv), ``grading`` (grade a class, verify),
``release`` (the student bundle).
"""
