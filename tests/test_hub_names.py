"""Students' names on the hub: from their accounts into roster.csv, from the roster into the
gradebook (which the Formgrader and nbgrader's export show).

But: no account is made here; ``tests/test_hub.py`` reads the names in the Formgrader.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder.roster import read_roster
from hub import accounts, layout


def test_the_roster_holds_the_accounts_names_as_plain_text(tmp_path: Path) -> None:
    names = {"bpe-student1": ("Student", "1"), "bpe-student2": ("=cmd|' /c calc'!A0", "Evil")}
    layout.write_roster(["bpe-student1", "bpe-student2"], tmp_path, os.getuid(), os.getgid(), names)
    roster = read_roster(tmp_path)
    assert (roster["bpe-student1"].first_name, roster["bpe-student1"].last_name) == ("Student", "1")
    assert roster["bpe-student2"].first_name.startswith("'=")  # no formula in a spreadsheet


def test_enroll_puts_the_rosters_names_in_the_gradebook(tmp_path: Path) -> None:
    from nbgrader.api import Gradebook

    (tmp_path / "roster.csv").write_text(
        "student_id,first_name,last_name\nada,Ada,Lovelace\nbob,,\n"
    )
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    env = {
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],  # alembic
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    }
    done = subprocess.run(
        [sys.executable, "-c", layout.ENROLL, url, "ada", "bob"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Gradebook(url) as gradebook:
        ada, bob = gradebook.find_student("ada"), gradebook.find_student("bob")
        assert (ada.first_name, ada.last_name) == ("Ada", "Lovelace")
        assert (bob.first_name, bob.last_name) == (None, None)


def test_a_new_accounts_full_name_and_its_parts() -> None:
    assert accounts.default_full_name("bpe-", "bpe-student12") == "Student 12"
    assert accounts.default_full_name("bpe-", "bpe-instructor") == "Instructor"
    assert accounts.split_name("Grace") == ("", "Grace")
    assert accounts.full_name("no-such-account-here") == ""
