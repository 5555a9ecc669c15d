"""The hidden tests: cases, running an answer on them, judging the outcomes, naming mistakes.

Uses only ``autograder.course``, ``solutions``, ``bpe_course`` and the standard library.
"""
