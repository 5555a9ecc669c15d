"""The failure messages a student reads: written by ``bpe_course.feedback``, the same code
that writes the notebooks' visible tests' messages, so a mistake reads the same in the
notebook and in the graded feedback.

But: it decides nothing about right or wrong; ``judge`` hands it the trials.
"""

from bpe_course.feedback import (  # noqa: F401 - the names the grading tools use
    ERROR_ADVICE,
    REPR_LIMIT,
    call_text,
    describe,
    named_mistake,
    not_written,
)
