"""The one command line of the grading tools: ``python -m autograder <command> [options]``.

One ``argparse`` parser with a subcommand per job (``SUMMARIES``); ``python -m autograder
--help`` lists them and ``python -m autograder <command> --help`` says what each takes. Every
value is checked here, so a wrong one stops the command with a line naming it and exit status
2 before anything is read or written. Each command then calls a plain function of the module
that does the work, with typed values (``GradingOptions`` for grading).

>>> parser().parse_args(["grade", "--root", "/c", "--jobs", "3"]).jobs
3

But: it grades, exports and builds nothing itself; the check that no folder another account
can write is on the path comes before this module loads, in ``__main__`` (grading) or in
``on_dask`` (Dask's programs).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from autograder.course import ASSIGNMENT
from autograder.grading import grade_class, on_dask
from autograder.grading.options import GradingOptions, course_root
from autograder.reports import canvas as canvas_file
from autograder.reports import export_grades, similarity
from autograder.reports import moodle as moodle_file

Options = TypeVar("Options", GradingOptions, canvas_file.CanvasOptions, moodle_file.MoodleOptions)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose ``--help`` is said in our words and whose refusals also say
    where the options are listed."""

    def __init__(self, **options: Any) -> None:
        super().__init__(add_help=False, **options)
        self.add_argument(
            "-h", "--help", action="help", help="say what this command does and what it takes"
        )

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n(`{self.prog} --help` lists what it takes)\n")


def _settings_file(text: str) -> Path:
    path = Path(text).resolve()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no settings file {path}: give an nbgrader_config.py")
    return path


def _count(what: str) -> Callable[[str], int]:
    """A type for a count of ``what`` that must be 1 or more."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of {what}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{value} {what}: give 1 or more")
        return value

    return read


def _memory(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of GB") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value:g} GB: give 0 (no limit) or more")
    return value


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of spreads") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{value:g} spreads: give a number above 0")
    return value


def _tls_address(text: str) -> str:
    if not text.startswith("tls://"):
        raise argparse.ArgumentTypeError(
            f"the scheduler's address must start with tls:// (got {text!r})"
        )
    return text


def _canvas_export(text: str) -> Path:
    path = Path(text).resolve()
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"no file {path}: download the gradebook from Canvas (Grades, Export) and give "
            "that file's path"
        )
    return path


def _grading(parser: argparse.ArgumentParser, some_students: bool = True) -> None:
    """How to grade: the options ``grade``, ``regrade`` and ``serve`` share (the first two
    with ``--student``)."""
    parser.add_argument(
        "--jobs",
        type=_count("worker processes"),
        default=os.cpu_count() or 1,
        help="worker processes of the local cluster (default: one a core)",
    )
    if some_students:
        parser.add_argument(
            "--student", action="append", help="grade only this student (give it again for more)"
        )
    parser.add_argument(
        "--memory-gb",
        type=_memory,
        help="memory one student's kernels may take together, in GB (0: no limit; default: "
        "GradingSandbox.kernel_memory_gb in nbgrader_config.py)",
    )
    parser.add_argument(
        "--judge-memory-gb",
        type=_memory,
        help="memory the judge may take running one notebook's answers, in GB (0: no limit; "
        "default: GradingSandbox.judge_memory_gb in nbgrader_config.py)",
    )
    parser.add_argument(
        "--timeout",
        type=_count("seconds"),
        help="seconds a cell may run (default: nbgrader_config.py's)",
    )
    parser.add_argument(
        "--lean",
        action="store_true",
        help="lesson cells run only their definitions, students' own cells whole (faster; "
        "make autograde's default)",
    )
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="grade without the sandbox (where bubblewrap is missing); every grade says so",
    )
    _where(parser, "grade")


def _where(parser: argparse.ArgumentParser, work: str) -> None:
    """Where to ``work``: the cluster's flags, and ``--in-process`` and ``--no-progress``."""
    parser.add_argument(
        "--scheduler",
        help=f"{work} on the running Dask cluster at this address (tls://host:8786), whose "
        "workers see the course folder at the same path (default: a local cluster of --jobs)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help=f"{work} in this process, one student after another, without Dask (a baseline)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _cluster(parser: argparse.ArgumentParser, work: str) -> None:
    """The flags of a command that runs one task per student on grading's cluster."""
    parser.add_argument(
        "--jobs",
        type=_count("worker processes"),
        default=os.cpu_count() or 1,
        help="worker processes of the local cluster (default: one a core)",
    )
    _where(parser, work)


def _lms(parser: argparse.ArgumentParser, out: str) -> None:
    """The options the Canvas and Moodle files share."""
    parser.add_argument("--out", type=Path, default=Path(out), help=f"file to write ({out})")
    parser.add_argument(
        "--assignment-name",
        default=ASSIGNMENT,
        help=f"the assignment's name in the LMS (default: {ASSIGNMENT})",
    )
    parser.add_argument(
        "--no-submission-zero",
        action="store_true",
        help="give 0 to students with no submission (by default the LMS keeps its value)",
    )
    parser.add_argument(
        "--allow-unmatched",
        action="store_true",
        help="write the file even when graded students are not in the LMS",
    )


# Each command's summary, in the order an instructor meets them: the top ``--help`` lists them
# and each command's ``--help`` opens with its own.
SUMMARIES = {
    "grade": "Grade every submission in submitted/ (or --student's), then print the class summary.",
    "regrade": "After a test changed: regrade the whole class and report whose grade moved "
    "(artifacts/grading/regrade-<time>.csv and .md).",
    "serve": "Grade each submission as it arrives in the exchange's inbound, by the course's "
    "collect rules, into the gradebook; Ctrl-C stops it.",
    "grading-status": "One line from the grading service's queue: how many wait, are graded and "
    "failed, the oldest wait; then each failure with its reason.",
    "feedback": "Write feedback/<student>/bpe/*.html from autograded/, hidden tests and checker "
    "tracebacks removed (nbgrader's generate_feedback, one task per student on Dask).",
    "export": "Write grades.csv: per student the status, total and each exercise; blank where a "
    "person must decide.",
    "canvas": "Fill Canvas's gradebook export with the grades, for Canvas's import "
    "(artifacts/grading/canvas-import.csv).",
    "moodle": "Write artifacts/grading/moodle-import.csv for Moodle's CSV grade import.",
    "similarity": "Rank each exercise's pairs of answers (and answers against references) by how "
    "much more they share than the class does (artifacts/grading/similarity.html and .csv).",
    "check-class": "List made-up student ids in the gradebook, submitted/ and feedback/, and "
    "other accounts' Dask folders in /tmp.",
    "scheduler": "Start a Dask scheduler for grading, with TLS and the course's certificate "
    "(.dask-tls/); Ctrl-C stops it.",
    "worker": "Start grading workers for a scheduler (run in the course folder of each grading "
    "machine); Ctrl-C stops them.",
    "bundle": "Write dist/bpe-course-student.zip: the student notebooks, bpe_course, the "
    "requirements, a README; nothing of the instructors'.",
    "solutions": "After the deadline: write release/bpe-solutions/, each lesson with the answers "
    "in and the hidden tests out.",
}
# Grading has always taken abbreviations (--stud); regrade reads its command line alike.
ABBREVIATING = ("grade", "regrade")


def parser() -> _Parser:
    """The command line: one subcommand per job, each with ``--root`` but ``bundle``."""
    top = _Parser(
        prog="python -m autograder",
        description="The course's grading tools: grade the class, give feedback, export the "
        "grades, build what students get.",
        allow_abbrev=False,
    )
    commands = top.add_subparsers(
        dest="command", required=True, title="commands", metavar="<command>"
    )
    sub: dict[str, _Parser] = {}
    for name, summary in SUMMARIES.items():
        sub[name] = commands.add_parser(
            name, help=summary, description=summary, allow_abbrev=name in ABBREVIATING
        )
        if name != "bundle":
            sub[name].add_argument(
                "--root",
                type=course_root,
                default=".",
                help="the course folder (default: the current folder)",
            )
    _grading(sub["grade"])
    _grading(sub["regrade"])
    _grading(sub["serve"], some_students=False)
    _cluster(sub["feedback"], "write each student's pages")
    sub["serve"].add_argument(
        "--idle-exit",
        type=_count("seconds"),
        metavar="SECONDS",
        help="stop once nothing has been waiting or grading for this many seconds (default: "
        "run until Ctrl-C)",
    )
    sub["serve"].add_argument(
        "--config",
        type=_settings_file,
        action="append",
        default=[],
        metavar="FILE",
        help="also read this nbgrader_config.py, under the course's own (which wins where both "
        "set a value): the hub's common settings, as the instructor's server reads them",
    )
    sub["export"].add_argument("--out", type=Path, default=Path("grades.csv"), help="CSV to write")
    canvas = sub["canvas"]
    canvas.add_argument("export", type=_canvas_export, help="the CSV from Canvas's Grades, Export")
    _lms(canvas, canvas_file.OUT)
    canvas.add_argument("--column", help="the assignment's column, as row 1 names it")
    canvas.add_argument(
        "--points", type=float, help="points possible of a new column (default: the assignment's)"
    )
    canvas.add_argument(
        "--overwrite", action="store_true", help="replace grades Canvas holds that differ"
    )
    moodle = sub["moodle"]
    _lms(moodle, moodle_file.OUT)
    moodle.add_argument(
        "--identifier",
        choices=sorted(moodle_file.HEADERS),
        default="email",
        help="what Moodle matches students on (default: email)",
    )
    moodle.add_argument(
        "--points",
        type=float,
        help="the grade item's maximum (default: the assignment's maximum in the gradebook)",
    )
    moodle.add_argument("--feedback", action="store_true", help="add a feedback column")
    sub["similarity"].add_argument(
        "--threshold",
        type=_threshold,
        default=similarity.DEFAULT_THRESHOLD,
        help="list a pair when its score stands this many robust spreads above the class's "
        f"median pair (default: {similarity.DEFAULT_THRESHOLD:g}; lower shows more)",
    )
    sub["similarity"].add_argument(
        "--references",
        type=Path,
        default=similarity.REFERENCES,
        help="folder of known answers (.py, .ipynb) to compare with, besides the course's "
        f"solutions (default: {similarity.REFERENCES}/ in the course folder)",
    )
    sub["scheduler"].add_argument(
        "--port",
        type=int,
        default=on_dask.DEFAULT_PORT,
        help=f"port (default: {on_dask.DEFAULT_PORT})",
    )
    sub["scheduler"].add_argument("--host", help="address to listen on (default: all)")
    worker = sub["worker"]
    worker.add_argument("address", type=_tls_address, help="the scheduler, tls://HOST:PORT")
    worker.add_argument(
        "--nworkers",
        type=_count("worker processes"),
        default=os.cpu_count() or 1,
        help="worker processes (default: one a core)",
    )
    sub["bundle"].add_argument("--out", type=Path, help="output folder (default: dist)")
    return top


def options_from(args: argparse.Namespace) -> GradingOptions:
    """How to grade, as ``grade`` and ``regrade`` read it."""
    return _flags_as(GradingOptions, args, course_root=args.root, progress=not args.no_progress)


def _serve(args: argparse.Namespace) -> int:
    """The grading service, imported only now (it loads nbgrader's exchange)."""
    from autograder.grading import service

    options = _flags_as(GradingOptions, args, course_root=args.root, progress=False)
    return service.serve(options, args.idle_exit, args.config)


def _grading_status(args: argparse.Namespace) -> int:
    from autograder.grading import service

    return service.status(args.root)


def _regrade(args: argparse.Namespace) -> int:
    if args.student is not None:
        print(
            "make regrade grades the whole class, so that nobody's changed grade goes unseen; "
            "to grade some students, use make autograde STUDENT=a,b",
            file=sys.stderr,
        )
        return 2
    return grade_class.regrade(options_from(args))


def _feedback(args: argparse.Namespace) -> int:
    """Each student's pages by nbgrader's ``GenerateFeedback``, one task per student on Dask
    (grading's cluster flags; nothing else of grading's options applies)."""
    options = GradingOptions(
        course_root=args.root,
        jobs=args.jobs,
        scheduler=args.scheduler,
        in_process=args.in_process,
        progress=not args.no_progress,
    )
    return grade_class.feedback(options)


def _flags_as(options: type[Options], args: argparse.Namespace, **given: Any) -> Options:
    """The dataclass ``options``: the fields ``given``, each other one the flag of its name."""
    names = [field.name for field in fields(options) if field.name not in given]
    return options(**{name: getattr(args, name) for name in names}, **given)


def _release(args: argparse.Namespace) -> int:
    """``bundle`` or ``solutions``, importing the release tools only now: they load nbgrader's
    converters, which the other commands never need."""
    from autograder import release

    if args.command == "bundle":
        return release.run_bundle(args.out)
    return release.run_solutions(args.root)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "grade": lambda args: grade_class.run(options_from(args), args.student),
    "regrade": _regrade,
    "serve": _serve,
    "grading-status": _grading_status,
    "feedback": _feedback,
    "export": lambda args: export_grades.run(args.root, args.out),
    "canvas": lambda args: canvas_file.run(_flags_as(canvas_file.CanvasOptions, args)),
    "moodle": lambda args: moodle_file.run(_flags_as(moodle_file.MoodleOptions, args)),
    "similarity": lambda args: similarity.run(args.root, args.threshold, args.references),
    "check-class": lambda args: grade_class.check_class(args.root),
    "scheduler": lambda args: on_dask.run_scheduler(args.root, args.port, args.host),
    "worker": lambda args: on_dask.run_workers(args.root, args.address, args.nworkers),
    "bundle": _release,
    "solutions": _release,
}


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (default: this process's arguments); its exit status."""
    args = parser().parse_args(argv)
    return COMMANDS[args.command](args)
