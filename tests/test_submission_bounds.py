"""A submission of sixty thousand files is refused at collect and at grading, unread past the bound.

Sixty thousand empty files (under every size cap) once made the class's ``make autograde`` take
155 s instead of 18–20 s. A submission is now bounded before it is copied: at most
``MAX_ENTRIES`` files and folders, ``MAX_DEPTH`` deep (``safe_walk``). Here the walks of
collect (``copy_plain``) and of grading (``unsafe_entries``) refuse such a folder having listed
no more than the bound (counted at ``os.scandir``), and ``nbgrader collect`` takes an honest
entry beside a crowded one. No time is measured: the count of entries read is what does not
grow. But: grading a crowded submission beside a class is ``test_refused_submission``'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.grading.grade_one import unsafe_entries
from autograder.plugins.owned_collect import copy_plain
from autograder.sandbox.safe_walk import MAX_DEPTH, MAX_ENTRIES, TooManyEntriesError
from tests.test_exchange_collect import COURSE_ID, GHOST, collect, stamp

CROWD = 60_000
TOO_MANY = f"too many files (more than {MAX_ENTRIES})"


def fill(folder: Path, count: int) -> Path:
    """``folder`` (created) holding one notebook and ``count`` - 1 empty files."""
    folder.mkdir(parents=True)
    (folder / "01_bpe_by_hand.ipynb").write_text("{}")
    for n in range(count - 1):
        os.close(os.open(folder / f"f{n:05d}", os.O_CREAT | os.O_WRONLY, 0o644))
    return folder


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fill(tmp_path_factory.mktemp("crowd") / "submitted" / "crowd" / "bpe", CROWD)


class CountingScandir:
    """``os.scandir`` that counts the entries every walk takes from it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read = 0
        self.real = os.scandir
        monkeypatch.setattr(os, "scandir", self)

    def __call__(self, path):  # noqa: ANN001, ANN204 - os.scandir's own arguments
        counter = self

        class Counted:
            def __init__(self) -> None:
                self.inner = counter.real(path)

            def __enter__(self) -> Iterator[os.DirEntry]:
                self.inner.__enter__()
                return self

            def __exit__(self, *exc: object) -> None:
                self.inner.__exit__(*exc)

            def __iter__(self) -> Iterator[os.DirEntry]:
                return self

            def __next__(self) -> os.DirEntry:
                entry = next(self.inner)
                counter.read += 1
                return entry

        return Counted()


def test_grading_refuses_sixty_thousand_files_having_read_only_the_bound(
    crowded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = CountingScandir(monkeypatch)
    with pytest.raises(TooManyEntriesError, match="^" + re.escape(TOO_MANY)):
        unsafe_entries(crowded)
    assert counted.read == MAX_ENTRIES + 1


def test_collect_refuses_sixty_thousand_files_having_read_only_the_bound(
    crowded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for into in (None, str(tmp_path / "copy")):
        counted = CountingScandir(monkeypatch)
        with pytest.raises(TooManyEntriesError, match="too many files"):
            copy_plain(str(crowded), into, None, 10**9)
        assert counted.read == MAX_ENTRIES + 1
    assert not (tmp_path / "copy").exists() or len(list((tmp_path / "copy").iterdir())) == 0


def test_the_bound_itself_is_graded_and_collected(tmp_path: Path) -> None:
    folder = fill(tmp_path / "entry", MAX_ENTRIES)
    assert unsafe_entries(folder) == []
    copy_plain(str(folder), str(tmp_path / "copy"), None, 10**9)
    assert len(list((tmp_path / "copy").iterdir())) == MAX_ENTRIES
    (folder / "one-more").write_text("")
    with pytest.raises(TooManyEntriesError, match="too many files"):
        unsafe_entries(folder)


def test_folders_nested_past_the_depth_are_refused(tmp_path: Path) -> None:
    entry = tmp_path / "entry"
    deepest = entry.joinpath(*[f"d{n}" for n in range(MAX_DEPTH)])
    deepest.mkdir(parents=True)
    (deepest / "notes.txt").write_text("deep")
    assert unsafe_entries(entry) == []
    copy_plain(str(entry), None, None, 10**9)
    (deepest / "one-more").mkdir()
    said = f"folders nested more than {MAX_DEPTH} deep"
    with pytest.raises(TooManyEntriesError, match=said):
        unsafe_entries(entry)
    with pytest.raises(TooManyEntriesError, match=said):
        copy_plain(str(entry), None, None, 10**9)


@pytest.mark.nbgrader
def test_nbgrader_collect_refuses_the_crowded_entry_and_takes_the_honest_one(
    tmp_path: Path,
) -> None:
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    crowd = fill(inbound / f"{GHOST}-crowd+bpe+{stamp(5)}+x", CROWD)
    (crowd / "timestamp.txt").write_text(stamp(5))
    honest = inbound / f"{GHOST}+bpe+{stamp(5)}+y"
    honest.mkdir()
    (honest / "timestamp.txt").write_text(stamp(5))
    owned = collect(tmp_path / "owned", tmp_path / "exchange")
    said = " ".join((owned.stdout + owned.stderr).split())
    assert owned.returncode == 1 and "refused 1 entry of inbound" in said, said
    assert f"Not collecting '{crowd.name}': {TOO_MANY}" in said, said
    assert (tmp_path / "owned" / "submitted" / GHOST / "bpe" / "timestamp.txt").exists()
    assert not (tmp_path / "owned" / "submitted" / f"{GHOST}-crowd").exists()


def test_the_readme_states_the_bounds() -> None:
    from tests.conftest import ROOT

    readme = " ".join((ROOT / "README.md").read_text().split())
    said = f"A submission of more than {MAX_ENTRIES} files and folders, or folders nested more"
    assert f"{said} than {MAX_DEPTH} deep" in readme
    assert f"`needs manual grading: {TOO_MANY}`" in readme
