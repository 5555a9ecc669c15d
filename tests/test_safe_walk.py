"""A folder swapped for a link while a submission is walked is never entered, at grading or collect.

A student who can still change ``submitted/`` or an inbound entry while it is walked could
turn a folder into a link once its parent has been listed. Here ``os.scandir`` swaps ``notes/``
for a link to a folder outside the submission (holding only a regular file, so nothing there
looks wrong) as soon as the top folder has been listed: grading's walk
(``grade_one.unsafe_entries``) lists ``notes`` as unsafe and collect's
(``owned_collect.copy_plain``) refuses the entry, and neither reads the outside folder.

But: the walk's bounds are ``test_submission_bounds``'s, the refusals of links present from
the start ``test_exchange_collect``'s and ``test_refused_submission``'s.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.grading.grade_one import unsafe_entries
from autograder.plugins.owned_collect import UntrustedEntryError, copy_plain


class SwapAfterFirstListing:
    """``os.scandir`` that, once the first folder has been listed, makes ``folder`` a link to
    ``outside``, and records every folder it lists after that."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path, outside: Path) -> None:
        self.real = os.scandir
        self.folder, self.outside = folder, outside
        self.listed: list[tuple[int, int]] = []  # device and inode of each folder listed
        monkeypatch.setattr(os, "scandir", self)

    def __call__(self, path):  # noqa: ANN001, ANN204 - os.scandir's own arguments
        info = os.stat(path)
        self.listed.append((info.st_dev, info.st_ino))
        entries = list(self.real(path))
        if len(self.listed) == 1:
            os.rename(self.folder, self.folder.with_name("moved"))
            self.folder.symlink_to(self.outside)
        return _Listing(entries)


class _Listing(list):
    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def submission(tmp_path: Path) -> tuple[Path, Path]:
    """A submission with a notebook and ``notes/``, and a folder outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "answers.txt").write_text("not the student's")
    entry = tmp_path / "entry"
    (entry / "notes").mkdir(parents=True)
    (entry / "notes" / "mine.txt").write_text("mine")
    (entry / "01_bpe_by_hand.ipynb").write_text("{}")
    return entry, outside


def test_grading_lists_a_folder_made_a_link_after_listing_and_enters_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry, outside = submission(tmp_path)
    swap = SwapAfterFirstListing(monkeypatch, entry / "notes", outside)
    assert unsafe_entries(entry) == ["notes"]
    assert (os.stat(outside).st_dev, os.stat(outside).st_ino) not in swap.listed


def test_collect_refuses_a_folder_made_a_link_after_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry, outside = submission(tmp_path)
    swap = SwapAfterFirstListing(monkeypatch, entry / "notes", outside)
    with pytest.raises(UntrustedEntryError, match="'notes' is a symbolic link"):
        copy_plain(str(entry), str(tmp_path / "copy"), None, 10**6)
    assert (os.stat(outside).st_dev, os.stat(outside).st_ino) not in swap.listed
    assert not (tmp_path / "copy" / "notes").exists()
