"""No make target loses class data or a student's answers without being told to.

Each test runs the real Makefile in a scratch folder that holds made-up class data (a
submission, a gradebook, feedback, the grading records, the term secret) next to things that
can be rebuilt (release/, dist/, caches, test artifacts).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs make in a scratch course

CLASS_DATA = (
    "submitted/ada/bpe/01_bpe_by_hand.ipynb",
    "autograded/ada/bpe/01_bpe_by_hand.ipynb",
    "feedback/ada/bpe/01_bpe_by_hand.html",
    "gradebook.db",
    "artifacts/grading/verdicts.json",
    ".grading-secret",
)
REBUILDABLE = ("release/bpe/01_bpe_by_hand.ipynb", "dist/bundle.zip", ".ruff_cache/x")
REBUILDABLE += ("artifacts/browser/lab.png", "site/index.html", ".docs-build/src/index.md")


def _course(tmp_path: Path) -> Path:
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)  # copy2: the venv stays up to date
    for i, name in enumerate(CLASS_DATA + REBUILDABLE):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"{name} {i}\n")
    return tmp_path


def _digests(root: Path, names: tuple[str, ...]) -> dict[str, str]:
    return {
        name: hashlib.sha256((root / name).read_bytes()).hexdigest()
        for name in names
        if (root / name).exists()
    }


def _make(root: Path, *args: str) -> subprocess.CompletedProcess:
    command = ["make", "-s", "-C", str(root), f"VENV={ROOT / '.venv'}", *args]
    return subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_make_clean_removes_what_can_be_rebuilt_and_keeps_the_class(tmp_path: Path) -> None:
    root = _course(tmp_path)
    before = _digests(root, CLASS_DATA)
    assert _make(root, "clean").returncode == 0
    assert _digests(root, CLASS_DATA) == before and len(before) == len(CLASS_DATA)
    assert [name for name in REBUILDABLE if (root / name).exists()] == []


def test_make_clean_class_asks_and_keeps_everything_without_an_answer(tmp_path: Path) -> None:
    root = _course(tmp_path)
    before = _digests(root, CLASS_DATA)
    done = _make(root, "clean-class")
    assert done.returncode != 0
    assert "kept everything" in done.stdout
    for name in ("submitted", "gradebook.db", "feedback", "artifacts/grading", ".grading-secret"):
        assert f"  {name}\n" in done.stdout, name  # it says what it would delete
    assert _digests(root, CLASS_DATA) == before


def test_make_clean_class_with_force_deletes_the_class(tmp_path: Path) -> None:
    root = _course(tmp_path)
    done = _make(root, "clean-class", "FORCE=1")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("deleted")
    assert [name for name in CLASS_DATA if (root / name).exists()] == []
    assert (root / "dist" / "bundle.zip").exists()  # not class data: clean-class leaves it


@pytest.mark.parametrize("force", [False, True])
def test_make_notebooks_never_overwrites_answers_unless_forced(tmp_path: Path, force) -> None:
    root = _course(tmp_path)
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    shutil.copytree(ROOT / "notebooks", root / "release" / "bpe", dirs_exist_ok=True)
    answered = root / "notebooks" / "01_bpe_by_hand.ipynb"
    answered.write_text(answered.read_text().replace("raise NotImplementedError()", "return {}"))
    before = answered.read_bytes()
    if not force:
        done = _make(root, "notebooks")
        assert done.returncode != 0
        assert "notebooks/01_bpe_by_hand.ipynb" in done.stdout and "FORCE=1" in done.stdout
        assert answered.read_bytes() == before
        return
    # FORCE=1 gets past the check to nbgrader, which fails here for want of source/.
    done = _make(root, "notebooks", "FORCE=1")
    assert "would overwrite" not in done.stdout
    assert "GenerateAssignmentApp" in done.stderr and answered.read_bytes() == before
