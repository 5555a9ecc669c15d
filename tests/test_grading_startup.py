"""What every process that reads a notebook loads: not the IRI parser jsonschema 4.25 and
later would build for nothing (about a second a process, in each nbgrader command, Jupyter
server and grading worker); the course's environment leaves it out, and notebooks validate."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

_PROBE = """
import sys
import nbformat
notebook = nbformat.read("source/bpe/01_bpe_by_hand.ipynb", as_version=4)
nbformat.validate(notebook)
print("jsonschema" in sys.modules, sys.modules.get("rfc3987_syntax") is not None)
"""


def test_a_process_validates_notebooks_without_the_iri_parser() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "True False", done.stdout
