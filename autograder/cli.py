"""The one command line of the grading tools: ``python -m autograder <command> [options]``.

One ``argparse`` parser with a subcommand per job (``SUMMARIES``); ``python -m autograder
--help`` lists them and ``python -m autograder <command> --help`` says what each takes. Every
value is checked here, so a wrong one stops the command with a line naming it and exit status
2 before anything is read or written. Each command then calls a plain function of the module
that does the work, with typed values (``GradingOptions`` for grading), importing that module
only then: a command loads what it needs and no more (``make feedback`` starts without
nbgrader, which only its workers load).

>>> parser().parse_args(["grade", "--root", "/c", "--jobs", "3"]).jobs
3

But: it grades, exports and builds nothing itself; the check that no folder another account
can write is on the path comes before this module loads, in ``__main__`` (grading) or in
``on_dask`` (Dask's programs).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from autograder.course import ASSIGNMENT
from autograder.grading.options import GradingOptions, course_root

if TYPE_CHECKING:
    from autograder.reports.canvas import CanvasOptions
    from autograder.reports.moodle import MoodleOptions

Options = TypeVar("Options", GradingOptions, "CanvasOptions", "MoodleOptions")


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


def _file(what: str, hint: str) -> Callable[[str], Path]:
    """A type for the path of an existing file, refused as ``no <what> <path>: <hint>``."""

    def read(text: str) -> Path:
        path = Path(text).resolve()
        if not path.is_file():
            raise argparse.ArgumentTypeError(f"no {what} {path}: {hint}")
        return path

    return read


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


def _number(unit: str, refused: Callable[[float], bool], hint: str) -> Callable[[str], float]:
    """A type for a number of ``unit``; a value ``refused`` is answered with ``hint``."""

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None
        if refused(value):
            raise argparse.ArgumentTypeError(f"{value:g} {unit}: {hint}")
        return value

    return read


# Not a number, or infinite, would mean no limit (or a crash) where the flag asks for one.
_memory = _number("GB", lambda value: not 0 <= value < math.inf, "give 0 (no limit) or more")
_threshold = _number("spreads", lambda value: not value > 0, "give a number above 0")


def _tls_address(text: str) -> str:
    if not text.startswith("tls://"):
        raise argparse.ArgumentTypeError(
            f"the scheduler's address must start with tls:// (got {text!r})"
        )
    return text


# A count of worker processes: --jobs of grading's cluster (and worker's --nworkers).
JOBS: dict[str, Any] = {
    "type": _count("worker processes"),
    "default": os.cpu_count() or 1,
    "help": "worker processes of the local cluster (default: one a core)",
}


def _grading(parser: argparse.ArgumentParser, some_students: bool = True) -> None:
    """How to grade: the options ``grade``, ``regrade`` and ``serve`` share (the first two
    with ``--student``)."""
    parser.add_argument("--jobs", **JOBS)
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
    parser.add_argument("--jobs", **JOBS)
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


def parser(command: str | None = None) -> _Parser:
    """The command line: one subcommand per job, each with ``--root`` but ``bundle``. With
    ``command``, only that one's own options are declared (the others keep their summary):
    declaring a command's options imports the module whose defaults they show, and a run
    imports only what its command needs."""
    top = _Parser(
        prog="python -m autograder",
        description="The course's grading tools: grade the class, give feedback, export the "
        "grades, build what students get.",
        allow_abbrev=False,
    )
    commands = top.add_subparsers(
        dest="command", required=True, title="commands", metavar="<command>"
    )
    for name, summary in SUMMARIES.items():
        sub = commands.add_parser(
            name, help=summary, description=summary, allow_abbrev=name in ABBREVIATING
        )
        if name != "bundle":
            sub.add_argument(
                "--root",
                type=course_root,
                default=".",
                help="the course folder (default: the current folder)",
            )
        if command in (None, name):
            OPTIONS.get(name, lambda parser: None)(sub)
    return top


def _serve_options(serve: argparse.ArgumentParser) -> None:
    _grading(serve, some_students=False)
    serve.add_argument(
        "--idle-exit",
        type=_count("seconds"),
        metavar="SECONDS",
        help="stop once nothing has been waiting or grading for this many seconds (default: "
        "run until Ctrl-C)",
    )
    serve.add_argument(
        "--config",
        type=_file("settings file", "give an nbgrader_config.py"),
        action="append",
        default=[],
        metavar="FILE",
        help="also read this nbgrader_config.py, under the course's own (which wins where both "
        "set a value): the hub's common settings, as the instructor's server reads them",
    )


def _canvas_options(canvas: argparse.ArgumentParser) -> None:
    from autograder.reports.canvas import OUT

    download = "download the gradebook from Canvas (Grades, Export) and give that file's path"
    canvas.add_argument(
        "export", type=_file("file", download), help="the CSV from Canvas's Grades, Export"
    )
    _lms(canvas, OUT)
    canvas.add_argument("--column", help="the assignment's column, as row 1 names it")
    canvas.add_argument(
        "--points", type=float, help="points possible of a new column (default: the assignment's)"
    )
    canvas.add_argument(
        "--overwrite", action="store_true", help="replace grades Canvas holds that differ"
    )


def _moodle_options(moodle: argparse.ArgumentParser) -> None:
    from autograder.reports.moodle import HEADERS, OUT

    _lms(moodle, OUT)
    moodle.add_argument(
        "--identifier",
        choices=sorted(HEADERS),
        default="email",
        help="what Moodle matches students on (default: email)",
    )
    moodle.add_argument(
        "--points",
        type=float,
        help="the grade item's maximum (default: the assignment's maximum in the gradebook)",
    )
    moodle.add_argument("--feedback", action="store_true", help="add a feedback column")


def _similarity_options(similarity: argparse.ArgumentParser) -> None:
    from autograder.reports.similarity import DEFAULT_THRESHOLD, REFERENCES

    similarity.add_argument(
        "--threshold",
        type=_threshold,
        default=DEFAULT_THRESHOLD,
        help="list a pair when its score stands this many robust spreads above the class's "
        f"median pair (default: {DEFAULT_THRESHOLD:g}; lower shows more)",
    )
    similarity.add_argument(
        "--references",
        type=Path,
        default=REFERENCES,
        help="folder of known answers (.py, .ipynb) to compare with, besides the course's "
        f"solutions (default: {REFERENCES}/ in the course folder)",
    )


def _scheduler_options(scheduler: argparse.ArgumentParser) -> None:
    from autograder.grading.on_dask import DEFAULT_PORT

    scheduler.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})"
    )
    scheduler.add_argument("--host", help="address to listen on (default: all)")


def _worker_options(worker: argparse.ArgumentParser) -> None:
    worker.add_argument("address", type=_tls_address, help="the scheduler, tls://HOST:PORT")
    worker.add_argument("--nworkers", **JOBS | {"help": "worker processes (default: one a core)"})


# Each command's own options (a command missing here takes only --root).
OPTIONS: dict[str, Callable[[argparse.ArgumentParser], object]] = {
    "grade": _grading,
    "regrade": _grading,
    "serve": _serve_options,
    "feedback": lambda feedback: _cluster(feedback, "write each student's pages"),
    "export": lambda export: export.add_argument(
        "--out", type=Path, default=Path("grades.csv"), help="CSV to write"
    ),
    "canvas": _canvas_options,
    "moodle": _moodle_options,
    "similarity": _similarity_options,
    "scheduler": _scheduler_options,
    "worker": _worker_options,
    "bundle": lambda bundle: bundle.add_argument(
        "--out", type=Path, help="output folder (default: dist)"
    ),
}


def options_from(args: argparse.Namespace) -> GradingOptions:
    """How to grade, as ``grade`` and ``regrade`` read it."""
    return _flags_as(GradingOptions, args, course_root=args.root, progress=not args.no_progress)


def _service(args: argparse.Namespace) -> int:
    """``serve`` or ``grading-status``: the grading service, imported only now (it loads
    nbgrader's exchange)."""
    from autograder.grading import service

    if args.command == "grading-status":
        return service.status(args.root)
    options = _flags_as(GradingOptions, args, course_root=args.root, progress=False)
    return service.serve(options, args.idle_exit, args.config)


def _grade_class(args: argparse.Namespace) -> int:
    """``grade``, ``regrade`` or ``check-class``: the commands on the whole class."""
    if args.command == "regrade" and args.student is not None:
        print(
            "make regrade grades the whole class, so that nobody's changed grade goes unseen; "
            "to grade some students, use make autograde STUDENT=a,b",
            file=sys.stderr,
        )
        return 2
    from autograder.grading import grade_class

    if args.command == "check-class":
        return grade_class.check_class(args.root)
    if args.command == "regrade":
        return grade_class.regrade(options_from(args))
    return grade_class.run(options_from(args), args.student)


def _feedback(args: argparse.Namespace) -> int:
    """Grading's cluster flags alone: nothing else of grading's options applies."""
    from autograder.grading import on_dask

    options = GradingOptions(
        course_root=args.root,
        jobs=args.jobs,
        scheduler=args.scheduler,
        in_process=args.in_process,
        progress=not args.no_progress,
    )
    return on_dask.feedback(options)


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


def _export(args: argparse.Namespace) -> int:
    from autograder.reports import export_grades

    return export_grades.run(args.root, args.out)


def _canvas(args: argparse.Namespace) -> int:
    from autograder.reports import canvas

    return canvas.run(_flags_as(canvas.CanvasOptions, args))


def _moodle(args: argparse.Namespace) -> int:
    from autograder.reports import moodle

    return moodle.run(_flags_as(moodle.MoodleOptions, args))


def _similarity(args: argparse.Namespace) -> int:
    from autograder.reports import similarity

    return similarity.run(args.root, args.threshold, args.references)


def _dask_program(args: argparse.Namespace) -> int:
    """``scheduler`` or ``worker``: Dask's own program for the course."""
    from autograder.grading import on_dask

    if args.command == "scheduler":
        return on_dask.run_scheduler(args.root, args.port, args.host)
    return on_dask.run_workers(args.root, args.address, args.nworkers)


# Each command's work; each imports its modules only when it runs.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "grade": _grade_class,
    "regrade": _grade_class,
    "serve": _service,
    "grading-status": _service,
    "feedback": _feedback,
    "export": _export,
    "canvas": _canvas,
    "moodle": _moodle,
    "similarity": _similarity,
    "check-class": _grade_class,
    "scheduler": _dask_program,
    "worker": _dask_program,
    "bundle": _release,
    "solutions": _release,
}


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (default: this process's arguments); its exit status."""
    argv = sys.argv[1:] if argv is None else argv
    named = argv[0] if argv and argv[0] in COMMANDS else None
    args = parser(named).parse_args(argv)
    return COMMANDS[args.command](args)
