"""What a grading process loads: not the IRI parser jsonschema would build for nothing, and
notebooks still validate without it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # starts grading processes

_PROBE = """
import sys
{first}
import nbformat
notebook = nbformat.read("source/bpe/01_bpe_by_hand.ipynb", as_version=4)
nbformat.validate(notebook)
print("jsonschema" in sys.modules, sys.modules.get("rfc3987_syntax") is not None)
"""


def _loaded(first: str) -> str:
    probe = _PROBE.format(first=first)
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_grading_processes_validate_notebooks_without_the_iri_parser() -> None:
    # The control: nbformat alone pulls rfc3987_syntax in through jsonschema (a second).
    assert _loaded("") == "True True"
    assert _loaded("import autograder.grading.grade_class") == "True False"
