"""A deadline rush through the grading service, beside ``make autograde`` on the same class.

A class of ``--students N`` (default 12) hands in lesson 1 (right, or with one catalogued
mistake, taking turns) in a scratch copy of the course. First ``python -m autograder grade
--lean`` grades the class from ``submitted/`` on a local cluster of ``--jobs`` workers (timed
from start to exit: its students a second), then the same command grades one student alone
(what one late submission costs today). Then ``python -m autograder serve --lean`` starts on
the course's exchange, and once it is warm (it says it watches inbound) the whole class files
its entries into inbound at once, as the course's submit leaves them: a rush. From the
service's own store, each entry's latency is the time from its filing to its grading being
merged into the gradebook (p50, p95, max), and the drain rate is the class over the time from
the first filing to the last merge. Targets, on 2 cores: p50 at most 8 s, p95 at most 15 s,
the drain rate at least 80% of ``make autograde``'s. The figures and the targets go to
``artifacts/bench/service.json`` (``bench/record.py``).

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_service.py --students 4``.

But: the rush has no hub, so no hub page's time is measured, and no worker is killed; the
entries are filed by this process, not by students' submits (which add their own second each).
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

from autograder.grading.service import STATE_FOLDER  # noqa: E402
from course_fixtures.catalogue import CORRECT, WRONG  # noqa: E402
from course_fixtures.scratch_course import make_scratch_course  # noqa: E402
from course_fixtures.synthetic import write_submission  # noqa: E402

LESSON = "01_bpe_by_hand.ipynb"
COURSE_ID = "bpe-from-scratch"
TARGET_P50, TARGET_P95, TARGET_DRAIN = 8.0, 15.0, 0.80
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def answers(i: int) -> dict[str, str]:
    """Student ``i``'s lesson 1: right, or ``merge_pair`` with a catalogued mistake."""
    right = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    mistakes = list(WRONG["merge_pair"].values())
    return right if i % 2 == 0 else {**right, "merge_pair": mistakes[i % len(mistakes)]}


def entry(course: Path, drafts: Path, student: str, i: int, when: datetime.datetime) -> Path:
    """Student ``i``'s lesson 1 as an entry of the course's submit, ready to be renamed into
    inbound (outside it until then)."""
    written = write_submission(drafts, student, answers(i), [LESSON])
    stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    (written / "timestamp.txt").write_text(stamp)
    (written / "submission_secret.txt").write_text(f"{student}-{i}")
    for path in [written, *written.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return written.rename(course / f"{student}+bpe+{stamp}+{i:04x}")


def timed(command: list[str], course: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=course, env=ENV, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def autograde(course: Path, students: list[str], jobs: int) -> tuple[float, float]:
    """Seconds ``grade --lean`` takes for the class, then for one student alone."""
    for i, student in enumerate(students):
        write_submission(course, student, answers(i), [LESSON])
    grade = [sys.executable, "-m", "autograder", "grade", "--lean", "--no-progress"]
    grade += ["--jobs", str(jobs)]
    whole = timed(grade, course)
    one = timed([*grade, "--student", students[0]], course)
    return whole, one


def rush(course: Path, students: list[str], jobs: int) -> tuple[list[float], float]:
    """Each entry's seconds from filing to merge, and the seconds from the first filing to
    the last merge, through the service on ``course``."""
    inbound = course / ".exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    drafts = course.parent / "drafts"
    shutil.copytree(course / "release", drafts / "release")
    start = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    ready = [
        entry(course.parent, drafts, s, i, start - datetime.timedelta(seconds=60 - i))
        for i, s in enumerate(students)
    ]
    serve = [sys.executable, "-m", "autograder", "serve", "--lean", "--jobs", str(jobs)]
    service = subprocess.Popen(
        [*serve, "--idle-exit", "3"],
        cwd=course,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert service.stdout is not None
        for line in service.stdout:  # warm: the cluster is up and proved
            if line.startswith("grading each submission"):
                break
        filed = {}
        for path in ready:  # the rush: every entry at once
            path.rename(inbound / path.name)
            filed[path.name] = time.time()
        said, _ = service.communicate(timeout=3600)
    finally:
        if service.poll() is None:
            os.killpg(service.pid, 9)
            service.wait()
    if service.returncode:
        raise SystemExit(f"the service failed:\n{said[-2000:]}")
    with sqlite3.connect(course / STATE_FOLDER / "queue.db") as db:
        merged = dict(db.execute("SELECT name, changed FROM entry WHERE state = 'graded'"))
    missing = sorted(set(filed) - set(merged))
    if missing:
        raise SystemExit(f"not graded by the service: {missing}\n{said[-2000:]}")
    latencies = [merged[name] - filed[name] for name in filed]
    return latencies, max(merged.values()) - min(filed.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=12, help="students in the rush (12)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers")
    args = parser.parse_args()
    run = record.Run("service", __file__)
    students = [f"s{i:03d}" for i in range(args.students)]
    with tempfile.TemporaryDirectory(prefix="bench-service-") as scratch:
        batch = make_scratch_course(Path(scratch) / "batch" / "course")
        whole, one = autograde(batch, students, args.jobs)
        served = make_scratch_course(Path(scratch) / "served" / "course")
        latencies, drain_seconds = rush(served, students, args.jobs)
    n = len(students)
    p50 = statistics.median(latencies)
    p95 = statistics.quantiles(latencies, n=20, method="inclusive")[-1] if n > 1 else p50
    batch_rate, drain_rate = n / whole, n / drain_seconds
    print(f"make autograde: {n} students in {whole:.1f} s ({batch_rate:.2f} a second)")
    print(f"make autograde STUDENT=one: {one:.1f} s")
    print(f"service, warm: latency p50 {p50:.1f} s, p95 {p95:.1f} s, max {max(latencies):.1f} s")
    print(f"service: drained {n} in {drain_seconds:.1f} s ({drain_rate:.2f} a second)")
    for judged in (
        run.target("service latency p50 (s)", p50, TARGET_P50),
        run.target("service latency p95 (s)", p95, TARGET_P95),
        run.target(
            "service drain rate / autograde's", drain_rate / batch_rate, TARGET_DRAIN, at_least=True
        ),
    ):
        print(f"{judged['goal']}: {judged['measured']:.2f} ({judged['bound']} "
              f"{judged['limit']}): {judged['verdict']}")  # fmt: skip
    figures = {
        "students": n,
        "jobs": args.jobs,
        "autograde class seconds": round(whole, 2),
        "autograde one student seconds": round(one, 2),
        "service latency seconds": {
            "p50": round(p50, 2),
            "p95": round(p95, 2),
            "max": round(max(latencies), 2),
        },
        "service drain seconds": round(drain_seconds, 2),
    }
    print(f"wrote the record {run.write(figures).name}")


if __name__ == "__main__":
    main()
