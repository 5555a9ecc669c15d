"""Merging a student into the class gradebook finds their rows by index, not by reading the class.

nbgrader's schema leaves ``grade.notebook_id``, ``comment.notebook_id`` and
``submitted_notebook.assignment_id`` without an index of their own, so each merge read every
row of the class, and so did nbgrader's queries of one student's scores (the summary, the
exports): their cost a student grew with the class. After a merge the class
gradebook holds the course's indexes, and SQLite's plan for each of the merge's deletions
searches by them, scanning no table.

But: it times nothing (``bench/bench_thousand.py`` measures the class's growth).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grading import gradebook_rows


def _empty_rows() -> gradebook_rows.Rows:
    """What a student's private gradebook yields when nbgrader stored nothing for them."""
    rows = {"student": {"columns": ["id"], "rows": [["ada"]]}}
    for table in gradebook_rows._OWN_ROWS:
        rows[table] = {"columns": ["id"], "rows": []}
    return rows


def test_a_merge_leaves_indexes_that_its_deletions_search_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nbgrader runs `alembic` from PATH when it makes a gradebook.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    path = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{path}") as gradebook:  # nbgrader's own schema
        gradebook.add_assignment("bpe")
    with sqlite3.connect(path) as db:
        for table, own in gradebook_rows._OWN_ROWS.items():
            plan = db.execute(f"EXPLAIN QUERY PLAN DELETE FROM {table} WHERE {own}", ("bpe", "x"))
            scans = [row[3] for row in plan if row[3].startswith("SCAN")]
            if table != "submitted_assignment":  # nbgrader's schema alone reads every row
                assert scans, table
    gradebook_rows.merge_student(path, "bpe", "ada", _empty_rows())
    with sqlite3.connect(path) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert set(gradebook_rows.INDEXES) <= names
        for table, own in gradebook_rows._OWN_ROWS.items():
            plan = db.execute(f"EXPLAIN QUERY PLAN DELETE FROM {table} WHERE {own}", ("bpe", "x"))
            assert not [row[3] for row in plan if row[3].startswith("SCAN")], table
        assert db.execute("SELECT id FROM student").fetchall() == [("ada",)]
    # Merging again keeps them, once each.
    gradebook_rows.merge_student(path, "bpe", "ada", _empty_rows())
    with sqlite3.connect(path) as db:
        count = db.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'course_%'")
        assert count.fetchone() == (len(gradebook_rows.INDEXES),)
