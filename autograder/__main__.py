"""``python -m autograder <command>``: runs the command ``autograder.cli`` reads.

Grading commands (``grade``, ``regrade``) first refuse a path another account could plant a
module on, before any other import: a planted module would run as it loads.

But: it parses nothing itself; the subcommand is read from the first argument only to choose
that check.
"""

from __future__ import annotations

import sys

# What each grading process is called in its refusal.
GUARDED = {
    "grade": "the grading process",
    "regrade": "the regrading process",
    "serve": "the grading service",
}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in GUARDED:
        from autograder.sandbox.trusted_paths import refuse_untrusted

        refuse_untrusted(GUARDED[sys.argv[1]])

    from autograder.cli import main

    sys.exit(main())
