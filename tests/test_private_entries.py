"""A submitted entry no other account can write: made so by the course's submit, checked by collect.

nbgrader's own submit leaves each entry in inbound mode 0777, so a classmate who learned its
name could remove or rename the files in it, which leaves nothing for collect to see. The
course's submit (``private_submit``) leaves it 0755; collect (``owned_collect``) refuses an
entry, or a part of one, that an account other than its student's can write, wherever it
checks the owner. Here, without a hub: ``nbgrader submit`` as configured and with nbgrader's
stock submit (the control) in the same exchange, then the course's collect; and the rule
alone on ``copy_plain``. But: the hub's inbound and its accounts are ``test_hub``'s.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.plugins.owned_collect import UntrustedEntryError, copy_plain
from hub.layout import EXCHANGE_MODES
from tests.conftest import ROOT
from tests.test_exchange_collect import COURSE_ID, collect

PRIVATE = "autograder.plugins.private_submit.PrivateSubmit"
STOCK = "nbgrader.exchange.default.submit.ExchangeSubmit"
WRITABLE = "can be written by other accounts"


def entry(tmp_path: Path) -> Path:
    folder = tmp_path / "entry"
    (folder / "sub").mkdir(parents=True, mode=0o755)
    (folder / "01.ipynb").write_text("{}")
    (folder / "sub" / "notes.txt").write_text("notes")
    for path in (folder, folder / "sub"):
        path.chmod(0o755)
    for path in (folder / "01.ipynb", folder / "sub" / "notes.txt"):
        path.chmod(0o644)
    return folder


@pytest.mark.parametrize(
    "part, mode",
    [(".", 0o777), (".", 0o775), ("sub", 0o757), ("01.ipynb", 0o666), ("sub/notes.txt", 0o664)],
)
def test_a_part_another_account_can_write_is_refused_where_the_owner_is_checked(
    tmp_path: Path, part: str, mode: int
) -> None:
    folder = entry(tmp_path)
    copy_plain(str(folder), None, os.getuid(), 10**6)  # private: taken
    (folder / part).chmod(mode)
    with pytest.raises(UntrustedEntryError, match=WRITABLE):
        copy_plain(str(folder), None, os.getuid(), 10**6)
    with pytest.raises(UntrustedEntryError, match=WRITABLE):
        copy_plain(str(folder), str(tmp_path / "copy"), os.getuid(), 10**6)
    # No account named like the student (one machine): nbgrader's trust, the owner unchecked.
    assert copy_plain(str(folder), None, None, 10**6) == len("{}") + len("notes")


def released_exchange(tmp_path: Path, lesson: str, text: str) -> tuple[Path, Path, Path]:
    """An exchange whose inbound has the hub's modes and whose outbound holds ``lesson`` (as
    ``text``), and a student's home holding the same fetched copy: (exchange, inbound, home)."""
    exchange = tmp_path / "exchange"
    inbound = exchange / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    inbound.chmod(EXCHANGE_MODES["inbound"])
    home = tmp_path / "home"
    for released in (exchange / COURSE_ID / "outbound" / "bpe", home / "bpe"):
        released.mkdir(parents=True)
        (released / lesson).write_text(text)
    return exchange, inbound, home


def submit(home: Path, exchange: Path, plugin: str) -> None:
    command = [sys.executable, "-m", "nbgrader", "submit", "bpe", f"--course={COURSE_ID}"]
    command += [f"--Exchange.root={exchange}", f"--ExchangeFactory.submit={plugin}"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(command, cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.nbgrader
def test_the_course_submits_private_entries_and_collect_refuses_nbgraders_0777(
    tmp_path: Path,
) -> None:
    student = pwd.getpwuid(os.getuid()).pw_name  # nbgrader names the entry after the account
    exchange, inbound, home = released_exchange(tmp_path, "01_bpe_by_hand.ipynb", '{"cells": []}')

    submit(home, exchange, STOCK)
    (stock,) = inbound.iterdir()
    assert stat.S_IMODE(stock.stat().st_mode) == 0o777  # nbgrader's own, the control
    submit(home, exchange, PRIVATE)
    entries = sorted(inbound.iterdir())
    assert len(entries) == 2 and all(p.name.startswith(f"{student}+bpe+") for p in entries)
    (private,) = [p for p in entries if p != stock]
    for path in [private, *private.rglob("*")]:
        assert not path.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH), path
    assert stat.S_IMODE(private.stat().st_mode) == 0o755

    collected = collect(tmp_path / "course", exchange)
    said = " ".join((collected.stdout + collected.stderr).split())
    assert collected.returncode == 1 and "refused 1 entry of inbound" in said, said
    assert f"Not collecting '{stock.name}': the entry {WRITABLE} (mode 0777)" in said, said
    stamp = private.name.split("+")[2]
    kept = tmp_path / "course" / "submitted" / student / "bpe" / "timestamp.txt"
    assert kept.read_text().startswith(stamp.split(".")[0]), (kept.read_text(), stamp)
