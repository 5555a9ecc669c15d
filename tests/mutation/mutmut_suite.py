"""The test file mutmut runs on every mutant (copied as ``killtests/test_kill.py`` into the
scratch project ``tests/mutation/run_mutants.py`` builds): one test per exercise, which fails
when the exercise's mutated function fails its hidden tests (``BPE_MUTATION_KIND=hidden``) or
its visible test cell (``visible``). A mutant of another exercise's function passes here.

But: it runs only inside that scratch project, with mutmut's ``mutants/`` first on sys.path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.append(os.environ["BPE_COURSE_ROOT"])  # autograder/ and tests/; solutions/ is mutmut's

from mutmut.mutation.trampoline import get_mutant_under_test  # noqa: E402

from tests.mutation.frozen import freeze  # noqa: E402
from tests.mutation.kill import EXERCISES, failure, owner  # noqa: E402

KIND = os.environ["BPE_MUTATION_KIND"]
MUTATED = freeze(Path(os.environ["BPE_FROZEN_REFERENCE"]))


@pytest.mark.parametrize("name", EXERCISES)
def test_exercise(name: str) -> None:
    active = get_mutant_under_test()
    if "__mutmut_" in active and owner(active) != name:
        return  # another exercise's mutant: judged by that exercise's tests only
    found = failure(KIND, name, MUTATED[name])
    assert found is None, found
