"""The grading commands' seams: one options object, one result type, one command line.

- ``GradingOptions`` survives the pickling that hands it to Dask workers, cannot be changed
  on the way, and names the course folder by an absolute path whatever the command line said;
- a result that never came back from a worker is recorded in ``results.json`` with the same
  fields as any other student's, and its grading counts as stopped;
- ``grade_class`` (grade, regrade, check-class) and ``on_dask`` read ``--root`` alike;
- feedback tasks are handed out largest first, so that the last ones are short.

But: nothing here grades (``test_grade_class`` and ``test_dask_grading`` do).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
from pathlib import Path

import pytest

from autograder import cli

RECORD_FIELDS = {"student", "graded", "jailed", "seconds", "problems", "merge_seconds"}


def test_options_pickle_whole_and_stay_as_they_were_built(tmp_path: Path) -> None:
    args = ["--root", str(tmp_path), "--jobs", "3", "--timeout", "7", "--lean", "--unconfined"]
    options = cli.options_from(cli.parser().parse_args(["grade", *args]))
    assert pickle.loads(pickle.dumps(options)) == options
    assert (options.jobs, options.timeout, options.lean, options.unconfined) == (3, 7, True, True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.lean = False  # type: ignore[misc]


def test_a_relative_root_reaches_workers_as_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "course").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "course")
    monkeypatch.chdir(tmp_path)
    for given in ("link", "course", "./course/"):
        options = cli.options_from(cli.parser().parse_args(["grade", "--root", given]))
        assert options.course_root == (tmp_path / "course").resolve(), given
    default = cli.options_from(cli.parser().parse_args(["grade"]))
    assert default.course_root == Path(os.getcwd()).resolve()


def test_a_result_that_never_came_back_is_recorded_like_any_other(tmp_path: Path) -> None:
    from autograder.grading.grade_class import save_grading_results
    from autograder.grading.on_dask import failed

    lost = failed("ada", "its grading worker died every time it was tried")
    assert lost.stopped and not lost.graded and not lost.rows
    save_grading_results(tmp_path, [lost])
    (entry,) = json.loads((tmp_path / "artifacts" / "grading" / "results.json").read_text())
    assert set(entry) == RECORD_FIELDS | {"course_version"}
    assert entry["problems"] == [
        {"kind": "not_graded", "notebook": "", "detail": lost.problems[0].detail}
    ]
    assert json.loads((tmp_path / "artifacts" / "grading" / "verdicts.json").read_text()) == []


def test_every_grading_command_reads_the_course_root_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograder.grading import grade_class, on_dask

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    monkeypatch.setattr(grade_class, "foreign_dask_folders", lambda: [])
    monkeypatch.chdir(tmp_path.parent)
    relative = tmp_path.name
    assert cli.main(["check-class", "--root", relative]) == 0
    seen: list[Path] = []
    monkeypatch.setattr(on_dask, "refuse_untrusted", lambda process: None)
    monkeypatch.setattr(on_dask, "_wait", lambda process: process.wait())  # no signal handlers
    monkeypatch.setattr(
        on_dask, "scheduler_command", lambda root, port, host: seen.append(root) or ["true"]
    )
    assert cli.main(["scheduler", "--root", relative]) == 0
    assert seen == [tmp_path.resolve()]
    with pytest.raises(SystemExit):  # no abbreviations where there were none
        cli.main(["check-class", "--ro", relative])
    capsys.readouterr()


def test_feedback_is_handed_out_largest_first(tmp_path: Path) -> None:
    """The last feedback tasks leave the other workers idle while they finish: the students
    with the most autograded bytes go first, equal ones by name, a missing folder last."""
    from autograder.course import ASSIGNMENT
    from autograder.grading.on_dask import largest_first

    sizes = {"ada": 10, "bob": 300, "cy": 10, "di": 120}
    for student, size in sizes.items():
        folder = tmp_path / "autograded" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / "01.ipynb").write_bytes(b"x" * size)
        (folder / "02.ipynb").write_bytes(b"x" * size)
        (folder / "notes.txt").write_bytes(b"x" * 1000)  # not a notebook: not weighed
    order = largest_first(tmp_path, ["ada", "gone", "cy", "di", "bob"])
    assert order == ["bob", "di", "ada", "cy", "gone"]


def test_dask_scratch_left_by_a_killed_maker_goes_when_the_next_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A grading service stopped with SIGKILL (as the hub's rush test stops it) cannot remove
    # its Dask folder; the next one made on the machine does. It leaves alone a folder whose
    # maker lives, one whose Dask program still holds the lock though its maker was killed,
    # one without a lock file, another account's, and anything that is not a folder.
    import fcntl
    import subprocess
    import sys
    import tempfile

    from autograder.grading.on_dask import dask_scratch

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], text=True,
                          capture_output=True, check=True).stdout.strip()  # fmt: skip

    def left(name: str, lock: bool = True) -> Path:
        folder = tmp_path / f"bpe-dask-{name}-{gone}"
        (folder / "dask-scratch-space" / "worker-1").mkdir(parents=True)
        if lock:
            (folder / ".in-use").write_text("")
        return folder

    killed, held, unlocked = left("local-a"), left("worker-b"), left("local-c", lock=False)
    living = tmp_path / f"bpe-dask-local-d-{os.getppid()}"
    (living / ".in-use").parent.mkdir()
    (living / ".in-use").write_text("")
    other = tmp_path / f"bpe-dask-orphan-{gone}"
    other.write_text("")
    odd = tmp_path / "bpe-dask-local-f-\u00b9"  # a digit to isdigit, not to int
    odd.mkdir()
    theirs = left("local-e")
    if os.geteuid() == 0:
        os.chown(theirs, 65534, 65534)
    holder = os.open(held / ".in-use", os.O_RDONLY)  # as the Dask program the maker started
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        made, lock = dask_scratch("local")
    finally:
        os.close(holder)
    os.close(lock)
    assert made.name.startswith("bpe-dask-local-") and made.name.endswith(f"-{os.getpid()}")
    assert made.stat().st_mode & 0o777 == 0o700 and (made / ".in-use").exists()
    assert not killed.exists()
    assert held.exists() and unlocked.exists() and living.exists() and other.exists()
    assert odd.exists()
    assert theirs.exists() == (os.geteuid() == 0)
