"""A deadline rush through the grading service, beside ``make autograde`` on the same class.

A class of ``--students N`` (default 40) hands in lesson 1 (right, or with one catalogued
mistake, taking turns) in a scratch copy of the course. First ``python -m autograder grade
--lean`` grades the class from ``submitted/`` on a local cluster of ``--jobs`` workers (timed
from start to exit), then the same command grades one student alone: what one late submission
costs without the service. Then the class's hub is started by the hub guide's ``make hub``
(``bench/hub_pages.py``: ``--students`` accounts named ``bpebench<pid>-student<k>``, its
folder in the system's temporary folder, which every account can reach, the hub's grading
service on); once that service (JupyterHub's managed service, run as the instructor on the
hub's course and exchange) is warm, the instructor generates and releases ``bpe`` as the
guide says, and two loads are filed into the hub's inbound, each entry as the course's submit
leaves it (built aside, then renamed in whole,
owned by its student's account). Where no hub can run (not root, not Linux, ``make hub``
fails) or ``--no-hub`` is given, ``python -m autograder serve --lean`` on a scratch course
grades the same loads instead, and the record says which (``graded by``):

- **The rush** (the goals are judged on it): the minutes before a deadline. Every student
  files once and every fifth student a second time, at times of a Poisson process drawn from
  ``--seed``, whose mean rate is ``--load`` (default 0.5) times the rate at which ``make
  autograde`` graded this class in the same run. So the rush is stated in the machine's own
  capacity: at 0.5 the service has, on average, twice the capacity the rush asks for, as a
  service must to keep a queue short, and yet arrivals bunch (several in a second happen).
  For 40 students, with ``make autograde`` grading 0.3 to 0.6 of them a second on 2 shared
  cores, that is 48 entries over 3 to 7 minutes: a class's last minutes, bunched. The gaps
  are the seed's in units of the mean gap, so the pattern's shape is the same on every
  machine and its scale follows the machine; it is printed and recorded (seconds:student).
- **The burst**, the worst case: once the rush has drained, every student files again at the
  same instant. Its latencies are mostly queueing behind 2 workers, so they are reported, not
  judged; the burst is where the queue never empties, so it gives the service's drain rate,
  compared with ``make autograde``'s (in the rush, the arrivals set the pace by design).

Each entry's latency is from its renaming into inbound to its grading merged into the gradebook,
from the service's own store; an entry superseded by its student's newer one before being
graded has none (counted apart). Where an entry's seconds went is shown from the store's
timing table: found (the poll and the settle), collected, graded on Dask (the
worker's own seconds beside), merged. Goals on 2 cores: rush latency p50 at most 8 s and p95
at most 15 s, drain rate at least 80% of ``make autograde``'s.

**The hub's pages** (``bench/hub_pages.py``): the hub's first student is logged in and their
server started; from then until the burst has drained, threads of this bench load, each page
every 2 s, what that student's browser loads: the hub's login page, the hub's home, the
student's Lab page (its HTML) and their file list (Lab's first request to the server). Each
page's p50, p95, count and failures are given for 10 s with the service warm and idle before
the rush, for the rush (from its first filing until every entry is done) and for the burst;
goal: the slowest page's p95 in the rush at most 1 s. Without a hub the bench says "hub
pages: not measured (why)", records it, misses that goal, and runs the rest. The hub is
stopped and its accounts, folder and processes removed at the end, also on Ctrl-C or SIGTERM.

The figures, the pattern and the verdicts go to ``artifacts/bench/service.json``
(``bench/record.py``).

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_service.py --students 6``.

But: one student's pages are timed (no Chromium, so the Lab's scripts and later requests
are not), not a class's worth of browsers, and no student's kernel runs during the rush; the
entries are filed by this process as root and handed to the students' accounts, not made by
their submits (which add their own second each); ``make autograde`` is timed as root on a
scratch course, not as the hub's instructor; ``--jobs`` sets that and the no-hub ``serve``
only (the hub's service runs one worker a core); no worker is killed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import hub_pages  # noqa: E402  (bench/hub_pages.py, beside this script)
import record  # noqa: E402  (bench/record.py, beside this script)

from autograder.grading.service import GRADED, IN_FLIGHT, STATE_FOLDER, Store  # noqa: E402
from course_fixtures.catalogue import CORRECT, WRONG  # noqa: E402
from course_fixtures.scratch_course import make_scratch_course  # noqa: E402
from course_fixtures.synthetic import write_submission  # noqa: E402

LESSON = "01_bpe_by_hand.ipynb"
COURSE_ID = "bpe-from-scratch"
TARGET_P50, TARGET_P95, TARGET_DRAIN = 8.0, 15.0, 0.80
TARGET_PAGES = 1.0  # seconds: the slowest hub page's p95 in the rush
QUIET = 10.0  # seconds of the hub's pages with the service warm and idle, before the rush
WINDOWS = {
    "quiet": "before the rush (the service warm and idle)",
    "rush": "during the rush",
    "burst": "during the burst",
}
HOW_PAGES = "one logged-in student of the hub that grades the rush (make hub's)"
HUB_SERVICE = "the hub's own grading service (make hub's managed service, as the instructor)"
OWN_SERVE = "this bench's python -m autograder serve on a scratch course (no hub)"
WARM = "grading each submission"  # what the service says once it watches inbound
TWICE_EVERY = 5  # every fifth student files a second time in the rush
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
# Where an entry's seconds went, from the store: (shown as, from, to), each a milestone.
PARTS = (
    ("found (poll + settle)", "filed", "seen"),
    ("collected", "seen", "queued"),
    ("waiting to start", "queued", "started"),
    ("on Dask", "started", "done"),
    ("merged", "done", "merged"),
)


def answers(i: int) -> dict[str, str]:
    """Answer ``i``'s lesson 1: right, or ``merge_pair`` with a catalogued mistake."""
    right = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    mistakes = list(WRONG["merge_pair"].values())
    return right if i % 2 == 0 else {**right, "merge_pair": mistakes[i % len(mistakes)]}


def draft(drafts: Path, student: str, i: int) -> Path:
    """Answer ``i`` of ``student`` as an entry of the course's submit, built aside (outside
    inbound, on its file system) until it is filed."""
    written = write_submission(drafts, student, answers(i), [LESSON])
    for path in [written, *written.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return written.rename(drafts / f"draft-{i:04d}")


def file_entry(service: Service, built: Path, student: str, i: int) -> tuple[str, float]:
    """Stamp a built entry with now and rename it into inbound whole, as the course's submit
    does (on a hub, owned by the student's account, as theirs is); its name and when it
    appeared."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    (built / "timestamp.txt").write_text(stamp)
    (built / "submission_secret.txt").write_text(f"{student}-{i}")
    for written in ("timestamp.txt", "submission_secret.txt"):
        (built / written).chmod(0o644)
    service.hand_to(built, student)
    name = f"{student}+bpe+{stamp}+{i:04x}"
    built.rename(service.inbound / name)
    return name, time.time()


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


def rush_pattern(students: list[str], rate: float, seed: int) -> list[tuple[float, str]]:
    """(seconds after the rush starts, student) of each filing, oldest first: every student
    once and every ``TWICE_EVERY``-th twice, in an order and with gaps (a Poisson process of
    ``rate`` a second, the first at 0) drawn from ``seed``."""
    rng = random.Random(seed)
    filings = [*students, *students[::TWICE_EVERY]]
    rng.shuffle(filings)
    at, pattern = 0.0, []
    for student in filings:
        pattern.append((round(at, 2), student))
        at += rng.expovariate(rate)
    return pattern


class Service:
    """A grading service on a course's inbound, warm, whose store the bench reads."""

    course: Path
    inbound: Path
    said: Path  # where its output goes

    def running(self) -> bool:
        raise NotImplementedError

    def hand_to(self, entry: Path, student: str) -> None:
        """Give a built entry to its student's account, when there is one (a hub)."""

    def wait_for(self, done: object, seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while not done():  # type: ignore[operator]
            if not self.running() or time.monotonic() > deadline:
                raise SystemExit(f"the service is not {what}:\n{self.said.read_text()[-3000:]}")
            time.sleep(0.2)

    def store(self) -> Store:
        return Store(self.course / STATE_FOLDER / "queue.db", read_only=True)

    def settled(self, names: set[str]) -> bool:
        """Every one of ``names`` is in the store, none of them still on its way."""
        if not (self.course / STATE_FOLDER / "queue.db").exists():
            return False
        store = self.store()
        try:
            states = {e.name: e.state for e in store.entries()}
        finally:
            store.close()
        return names <= set(states) and not any(states[n] in IN_FLIGHT for n in names)

    def stop(self) -> None:
        """Stop it, if it is the bench's to stop."""


class Served(Service):
    """``python -m autograder serve`` on a scratch course, warm, with its output in a file."""

    def __init__(self, course: Path, jobs: int) -> None:
        self.course = course
        self.inbound = course / ".exchange" / COURSE_ID / "inbound"
        self.inbound.mkdir(parents=True, exist_ok=True)
        self.said = course.parent / "service.out"
        serve = [sys.executable, "-m", "autograder", "serve", "--lean", "--jobs", str(jobs)]
        with self.said.open("w") as out:
            self.process = subprocess.Popen(
                serve, cwd=course, env=ENV, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.wait_for(lambda: WARM in self.said.read_text(), 600, "warm")

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Ctrl-C, as an instructor stops it; then nothing of its group is left."""
        try:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=120)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class HubService(Service):
    """The hub's own grading service (``make hub``'s managed service, run by JupyterHub as
    the instructor) on the hub's course and exchange, once it is warm; the hub stops it."""

    def __init__(self, hub: hub_pages.ClassHub) -> None:
        self.hub = hub
        self.course = Path(hub.settings["course_root"])
        self.inbound = Path(hub.settings["exchange"]) / COURSE_ID / "inbound"
        self.said = hub.log
        self.wait_for(lambda: WARM in self.said.read_text(errors="replace"), 600, "warm")

    def running(self) -> bool:
        return self.hub.process is not None and self.hub.process.poll() is None

    def hand_to(self, entry: Path, student: str) -> None:
        self.hub.hand_to(entry, student)


def file_all(served: Service, schedule: list[tuple[float, str, Path]]) -> dict[str, float]:
    """File each built entry at its time (seconds from now); when each appeared, by name."""
    start, filed = time.monotonic(), {}
    for at, student, built in schedule:
        time.sleep(max(0.0, start + at - time.monotonic()))
        name, when = file_entry(served, built, student, int(built.name.split("-")[1]))
        filed[name] = when
    served.wait_for(lambda: served.settled(set(filed)), 3600, "done with every entry")
    return filed


def latencies(served: Service, filed: dict[str, float]) -> tuple[dict[str, float], int]:
    """Each graded entry's seconds from filing to merge, and how many were superseded."""
    store = served.store()
    try:
        entries = {e.name: e for e in store.entries() if e.name in filed}
        merged = {n: t["merged"] for n, t in store.timings().items() if n in filed}
    finally:
        store.close()
    missing = sorted(n for n, e in entries.items() if e.state not in (GRADED, "superseded"))
    if missing or len(entries) < len(filed):
        raise SystemExit(
            f"not graded by the service: {missing or sorted(set(filed) - set(entries))}"
        )
    graded = {n: merged[n] - filed[n] for n, e in entries.items() if e.state == GRADED}
    return graded, sum(e.state != GRADED for e in entries.values())


def breakdown(served: Service, filed: dict[str, float], graded: dict[str, float]) -> dict:
    """Where the graded entries' seconds went: the median of each part (``PARTS``) and of the
    worker's own, collect's and merge's seconds, and the same for the first entry filed (an
    idle warm service: one submission alone)."""
    store = served.store()
    try:
        seen = {e.name: e.seen for e in store.entries()}
        timings = store.timings()
    finally:
        store.close()

    def parts(name: str) -> dict[str, float]:
        at = {**timings[name], "filed": filed[name], "seen": seen[name]}
        shown = {part: at[end] - at[begin] for part, begin, end in PARTS}
        for own in ("collect", "worker", "merge"):
            shown[f"{own} itself"] = at[f"{own}_seconds"] or 0.0
        return {part: round(seconds, 2) for part, seconds in shown.items()}

    each = [parts(name) for name in graded]
    first = min(graded, key=filed.__getitem__)
    medians = {part: round(statistics.median(p[part] for p in each), 2) for part in each[0]}
    return {"median": medians, "first entry alone": parts(first)}


def percentiles(seconds: list[float]) -> dict[str, float]:
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[-1] if len(seconds) > 1 else 0
    p50 = statistics.median(seconds)
    return {"p50": round(p50, 2), "p95": round(p95 or p50, 2), "max": round(max(seconds), 2)}


def serve_loads(
    start: Callable[[], Service],
    release: Path,
    drafts: Path,
    students: list[str],
    rate: float,
    seed: int,
    windows: dict[str, tuple[float, float]],
) -> dict:
    """The rush, then the burst, through one warm service (``start`` starts it, or waits for
    it), each entry built in ``drafts`` from the notebooks of ``release``; their figures. Each
    window (``time.time()`` at its start and end) goes into ``windows`` by name: ``QUIET``
    seconds with the service warm and idle, then each load from its first filing to drained."""
    shutil.copytree(release, drafts / "release")
    pattern = rush_pattern(students, rate, seed)
    index = {s: i for i, s in enumerate(students)}
    rush = [(at, s, draft(drafts, s, k)) for k, (at, s) in enumerate(pattern)]
    burst = [(0.0, s, draft(drafts, s, len(pattern) + index[s])) for s in students]
    served = start()
    try:
        windows["quiet"] = (time.time(), time.time() + QUIET)
        time.sleep(QUIET)  # the hub's pages with the service warm and idle, for comparison
        windows["rush"] = (time.time(), 0.0)
        filed = file_all(served, rush)
        windows["rush"] = (windows["rush"][0], time.time())  # from the first filing to drained
        rushed, superseded = latencies(served, filed)
        parts = breakdown(served, filed, rushed)
        windows["burst"] = (time.time(), 0.0)
        burst_filed = file_all(served, burst)
        windows["burst"] = (windows["burst"][0], time.time())
        bursted, _ = latencies(served, burst_filed)
        burst_parts = breakdown(served, burst_filed, bursted)["median"]
    finally:
        served.stop()
    drain = max(bursted[n] + burst_filed[n] for n in bursted) - min(burst_filed.values())
    return {
        "rush arrivals (seconds:student)": " ".join(f"{at:g}:{s}" for at, s in pattern),
        "rush entries": len(filed),
        "rush window seconds": pattern[-1][0],
        "rush superseded before grading": superseded,
        "rush latency seconds": percentiles(list(rushed.values())),
        "rush breakdown seconds": parts,
        "burst latency seconds": percentiles(list(bursted.values())),
        "burst breakdown seconds": {"median": burst_parts},
        "burst drain seconds": round(drain, 2),
    }


def start_hub(hub: hub_pages.ClassHub, output: Path) -> hub_pages.Pages | None:
    """The class's hub up, its student logged in, and its pages ready to be timed; None (and
    ``hub.why`` says why) when it cannot be: the rest of the bench runs without it."""
    try:
        hub.start(output)
    except hub_pages.HubUnavailableError as why:
        hub.why = str(why)
    except (OSError, ValueError, KeyError, requests.RequestException) as error:
        print(f"the hub could not be started: {error!r}")  # may name folders: not recorded
        hub.why = f"the hub could not be started ({type(error).__name__}; printed above)"
    if hub.why:
        print(f"hub pages: not measured ({hub.why})")
        return None
    return hub_pages.Pages(hub.url, hub.pages())


def on_the_hub(hub: hub_pages.ClassHub) -> tuple[Callable[[], Service], Path, Path, list[str]]:
    """Once the hub's own service is warm (it generates ``bpe`` itself when starting), the
    instructor generates and releases ``bpe`` in the hub's course, as the hub guide says; the
    rush is then graded by that service, filed in the names of the hub's students."""
    service = HubService(hub)
    course = Path(hub.settings["course_root"])
    for step in ("generate_assignment", "release_assignment"):
        hub.run_as(hub.settings["instructor"], ["nbgrader", step, "bpe"], cwd=course)
    drafts = Path(hub.settings["state"]).parent / "bench-drafts"  # inbound's file system
    drafts.mkdir(mode=0o700)
    return (lambda: service), course / "release", drafts, hub.settings["students"]


def beside_no_hub(
    scratch: Path, students: list[str], jobs: int
) -> tuple[Callable[[], Service], Path, Path, list[str]]:
    """Without a hub: this bench's own ``serve`` on a scratch course."""
    course = make_scratch_course(scratch / "served" / "course")
    return (lambda: Served(course, jobs)), course / "release", scratch / "drafts", students


def page_figures(
    pages: hub_pages.Pages | None, windows: dict[str, tuple[float, float]], why: str
) -> dict | str:
    """Each page's figures in each window, or why none were measured."""
    if pages is None:
        return f"not measured ({why})"
    return {
        "how": HOW_PAGES,
        "each page every seconds": hub_pages.EVERY,
        "a failure counts as seconds": hub_pages.TIMEOUT,
        **{WINDOWS[name]: pages.during(*window) for name, window in windows.items()},
    }


def worst_p95(hub_figures: dict | str) -> float | None:
    """The slowest page's p95 in the rush; None when a page was not loaded in it."""
    if isinstance(hub_figures, str):
        return None
    rush = hub_figures[WINDOWS["rush"]].values()
    return None if any(page["p95"] is None for page in rush) else max(p["p95"] for p in rush)


def print_pages(hub_figures: dict | str) -> None:
    """A table: a row a page, a column a window, each cell p50 / p95 seconds (loads)."""
    if isinstance(hub_figures, str):
        print(f"hub pages: {hub_figures}")
        return
    windows = [name for name in WINDOWS.values() if name in hub_figures]
    print(f"hub pages, p50 / p95 s (loads, failed), {hub_figures['how']}:")
    print(f"  {'page':<50}" + "".join(f"{name.split(' (')[0]:>26}" for name in windows))
    for page in hub_figures[windows[0]] if windows else ():
        cells = [hub_figures[name][page] for name in windows]
        shown = [f"{c['p50']} / {c['p95']} ({c['count']}, {c['failed']})" for c in cells]
        print(f"  {page:<50}" + "".join(f"{cell:>26}" for cell in shown))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40, help="students in the class (40)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers")
    parser.add_argument("--seed", type=int, default=44, help="the rush's arrivals (44)")
    parser.add_argument(
        "--load", type=float, default=0.5,
        help="the rush's mean arrival rate over make autograde's rate for the class (0.5)",
    )  # fmt: skip
    parser.add_argument(
        "--hub-venv", type=Path, default=Path("/opt/bpe-course-hub/venv"),
        help="the hub's environment, as make hub's HUB_VENV (/opt/bpe-course-hub/venv)",
    )  # fmt: skip
    parser.add_argument(
        "--no-hub", action="store_true",
        help="no hub and no Unix accounts: the bench's own serve grades (pages not measured)",
    )  # fmt: skip
    args = parser.parse_args()
    # A SIGTERM stops the bench as Ctrl-C does: through the finally clauses that clean up.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    run = record.Run("service", __file__)
    students = [f"s{i:03d}" for i in range(args.students)]
    with tempfile.TemporaryDirectory(prefix="bench-service-") as scratch:
        batch = make_scratch_course(Path(scratch) / "batch" / "course")
        whole, one = autograde(batch, students, args.jobs)
        n, batch_rate = len(students), len(students) / whole
        rate = args.load * batch_rate
        print(f"make autograde: {n} students in {whole:.1f} s ({batch_rate:.2f} a second)")
        print(f"make autograde STUDENT=one: {one:.1f} s")
        print(f"the rush: {args.load} x that rate = {rate:.3f} entries a second, seed {args.seed}")
        hub = hub_pages.ClassHub(args.hub_venv, students=n, grading=True)
        windows: dict[str, tuple[float, float]] = {}
        try:
            if args.no_hub:
                hub.why, pages = "--no-hub was given", None
                print(f"hub pages: not measured ({hub.why})")
            else:
                pages = start_hub(hub, Path(scratch) / "make-hub.out")
            with contextlib.ExitStack() as sampling:
                if pages is not None:
                    sampling.enter_context(pages)
                    figures = serve_loads(*on_the_hub(hub), rate, args.seed, windows)
                else:
                    loads = beside_no_hub(Path(scratch), students, args.jobs)
                    figures = serve_loads(*loads, rate, args.seed, windows)
        finally:
            hub.stop()
    hub_figures = page_figures(pages, windows, hub.why)
    graded_by = HUB_SERVICE if pages is not None else OWN_SERVE
    print(f"graded by {graded_by}")
    print(f"arrivals (seconds:student): {figures['rush arrivals (seconds:student)']}")
    rushed, bursted = figures["rush latency seconds"], figures["burst latency seconds"]
    drain_rate = n / figures["burst drain seconds"]
    print(
        f"rush: {figures['rush entries']} entries over {figures['rush window seconds']:.0f} s, "
        f"{figures['rush superseded before grading']} superseded before grading; latency "
        f"p50 {rushed['p50']} s, p95 {rushed['p95']} s, max {rushed['max']} s"
    )
    for which, parts in figures["rush breakdown seconds"].items():
        print(f"  {which}: " + ", ".join(f"{part} {s:g}" for part, s in parts.items()))
    parts = figures["burst breakdown seconds"]["median"]
    print("  burst median: " + ", ".join(f"{part} {s:g}" for part, s in parts.items()))
    print(
        f"burst: {n} at once, latency p50 {bursted['p50']} s, p95 {bursted['p95']} s, max "
        f"{bursted['max']} s; drained in {figures['burst drain seconds']} s "
        f"({drain_rate:.2f} a second)"
    )
    print_pages(hub_figures)
    for judged in (
        run.target("service latency p50 in the rush (s)", rushed["p50"], TARGET_P50),
        run.target("service latency p95 in the rush (s)", rushed["p95"], TARGET_P95),
        run.target(
            "service drain rate / autograde's", drain_rate / batch_rate, TARGET_DRAIN, at_least=True
        ),
        run.target("hub pages p95 in the rush (s)", worst_p95(hub_figures), TARGET_PAGES),
    ):
        measured = judged["measured"]
        shown = "not measured" if measured is None else f"{measured:.2f}"
        print(f"{judged['goal']}: {shown} ({judged['bound']} {judged['limit']}): "
              f"{judged['verdict']}")  # fmt: skip
    figures = {
        "students": n,
        "jobs": args.jobs,
        "seed": args.seed,
        "load": args.load,
        "graded by": graded_by,
        "rush arrival rate a second": round(rate, 4),
        "autograde class seconds": round(whole, 2),
        "autograde one student seconds": round(one, 2),
        **figures,
        "hub pages": hub_figures,
    }
    print(f"wrote the record {run.write(figures).name}")


if __name__ == "__main__":
    main()
