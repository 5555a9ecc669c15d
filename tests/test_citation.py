"""CITATION.cff is valid Citation File Format 1.2.0, and the version is the same everywhere.

It validates the file with jsonschema against the CFF 1.2.0 schema that cffconvert 2.0.0
ships (tests/support/cff-1.2.0.schema.json, copied from its wheel), the check
``cffconvert --validate`` makes; cffconvert itself cannot be installed beside jupyterlab,
since it needs jsonschema<4.

But: it does not check that the authors or the text are right, only the format, the version
and the licences.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "support" / "cff-1.2.0.schema.json"


def cff_errors(text: str) -> list[str]:
    """Every way the CFF text breaks the 1.2.0 schema, as readable lines (none: valid)."""
    data = yaml.safe_load(text)
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
        for error in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    ]


def test_citation_cff_is_valid() -> None:
    assert cff_errors((ROOT / "CITATION.cff").read_text()) == []


@pytest.mark.parametrize(
    "broken",
    [
        "cff-version: 1.2.0\nmessage: Cite it\ntitle: x\n",  # no authors
        "cff-version: 1.2.0\nmessage: Cite it\ntitle: x\nauthors:\n  - name: A\nlicense: MITT\n",
        "cff-version: 1.2.0\nmessage: Cite it\ntitle: x\nauthors:\n  - name: A\n"
        "date-released: '2026-13-40'\n",
    ],
)
def test_the_validator_rejects_broken_files(broken: str) -> None:
    assert cff_errors(broken)


def test_citation_names_pyprojects_version_and_licences() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["version"] == project["version"]
    assert " AND ".join(citation["license"]) == project["license"]


def test_one_version_everywhere() -> None:
    import bpe_course
    from bpe_course.selfcheck import version_line

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert bpe_course.__version__ == project["version"]
    assert version_line() == f"bpe-course {project['version']} self-check"
    assert f"bpe-course {project['version']} self-check" in (ROOT / "CHANGELOG.md").read_text()
