"""Which answers look copied: per exercise, every student's answer compared with every other's
and with reference sources, ranked against what the class's honest answers share.

Each answer is the source of a student's solution cell of an exercise (``grade_id`` its
name), read from ``submitted/<student>/bpe/`` through the safe walk (no link followed, sizes
bounded). copydetect tokenizes it with Pygments, renaming every variable, function and string
to one letter and dropping comments and layout (``filter_code``); its k-grams are hashed here
with BLAKE2b (copydetect's own hash is Python's ``hash``, which changes with PYTHONHASHSEED)
and winnowed by copydetect (``winnow``). The k-grams of the boilerplate, the released stub and
every other code cell of the lessons, are dropped, so only what the student wrote counts.

A pair's score is the share of the smaller answer's fingerprints found in the other, each
fingerprint weighted by how rare it is in the class (``log((n + 1) / df)``: a line every
student writes counts little). Short canonical functions still collide, so a pair is listed
only when its score stands ``threshold`` robust standard deviations (1.4826 times the median
absolute deviation, at least ``MIN_SPREAD``) above the median of all student pairs of that
exercise. References are the course's solutions and every ``.py`` or ``.ipynb`` file an
instructor puts in ``similarity-references/``; a student's answer is compared with each whole.

``run`` writes ``artifacts/grading/similarity.html`` (ranked pairs side by side, shared
passages marked, no script) and ``similarity.csv`` through the formula-safe writer, both
readable by their owner alone.

>>> scores = np.array([[0, 0.2, 0.9], [0.2, 0, 0.1], [0.9, 0.1, 0]])
>>> [round(x, 3) for x in class_spread(scores, 3)]  # the median pair, 1.4826 * its MAD
[0.2, 0.148]

But: a high score says two texts share unusual passages, not who copied from whom or that
anyone did; a person decides. Only the exercise's solution cell is read: a helper a student
defined in another cell is not compared. It runs no student code.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
from copydetect.utils import filter_code, get_token_coverage, highlight_overlap, winnow
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from autograder.course import ASSIGNMENT, CODE_ROOT, EXERCISES, RECORDS
from autograder.reports.safe_csv import replacing, write_csv
from autograder.roster import read_roster, why_not_a_student
from autograder.sandbox import safe_walk
from bpe_course.lesson_cells import nbgrader_meta

# Filtered characters in a k-gram (copydetect's noise threshold) and winnowing's window: a
# passage of K + WINDOW - 1 filtered characters shared is always seen. Filtered code is dense
# (`forVinF(V,V[1:]):` for a whole loop header), so these suit 5 to 30 line functions.
K = 16
WINDOW = 5
DEFAULT_THRESHOLD = 6.0
MIN_SPREAD = 0.1  # a class whose pairs all score alike still needs a real gap to list one
MIN_FINGERPRINTS = 4  # an answer with fewer after the boilerplate is too short to judge
MAX_LISTED = 100  # pairs shown per exercise, the highest first
MAX_CSV_ROWS = 1000  # pairs the CSV lists per exercise
PER_PROCESS = 200  # texts that make another tokenizing process worth its start
MAX_ANSWER_CHARS = 20_000  # of one answer or reference: beyond is not read
MAX_NOTEBOOK_BYTES = 20 * 2**20  # as grading's bound on a submitted notebook
REFERENCES = Path("similarity-references")
HTML_OUT = RECORDS / "similarity.html"
CSV_OUT = RECORDS / "similarity.csv"
PRIVATE = 0o600  # names and code: the instructor's alone
CSV_HEADER = (
    *("exercise", "rank", "student", "other", "score"),
    *("spreads_above_class", "class_median", "class_spread"),
)


@dataclass
class Fingerprint:
    """One text's winnowed fingerprints, with the attributes copydetect's ``compare_files``
    reads (its ``CodeFingerprint`` would hash with Python's seeded ``hash``)."""

    filename: str
    raw_code: str
    filtered_code: str
    offsets: np.ndarray
    hashes: set[int]
    hash_idx: dict[int, list[int]]
    k: int = K
    token_coverage: float = 0.0


@dataclass
class Source:
    """A text compared: a student's answer or a reference, ``who`` as the report names it."""

    who: str
    code: str
    print_: Fingerprint | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Pair:
    """Two sources of one exercise whose score stands out from the class."""

    first: Source
    second: Source
    score: float
    above: float  # robust standard deviations above the class's median pair


@dataclass
class ExerciseReport:
    """One exercise: its listed pairs and the spread they were measured against."""

    name: str
    pairs: list[Pair]  # the highest MAX_CSV_ROWS; the page shows the first MAX_LISTED
    median: float
    spread: float
    compared: int  # students whose answers were compared
    too_short: list[str]
    found: int = 0  # pairs past the threshold, shown or not


def _kgram_hashes(text: str, k: int) -> np.ndarray:
    """A stable 48-bit hash of each k-gram of ``text`` (exact in the float64 winnowing buffer)."""
    return np.array(
        [
            int.from_bytes(hashlib.blake2b(text[i : i + k].encode(), digest_size=6).digest())
            for i in range(len(text) - k + 1)
        ],
        dtype=np.int64,
    )


def _filtered(code: str) -> tuple[str, np.ndarray]:
    return filter_code(code, "answer.py", language="python")


def boilerplate_hashes(texts: Sequence[str]) -> np.ndarray:
    """Every k-gram hash of ``texts`` (not winnowed, so no shared passage escapes)."""
    found = [_kgram_hashes(_filtered(text)[0], K) for text in texts]
    return np.unique(np.concatenate(found)) if found else np.array([], dtype=np.int64)


def fingerprint(code: str, boilerplate: np.ndarray, name: str = "answer") -> Fingerprint:
    """``code`` tokenized, winnowed and stripped of ``boilerplate``'s fingerprints."""
    filtered, offsets = _filtered(code)
    all_hashes = _kgram_hashes(filtered, K)
    if len(all_hashes) == 0:
        return Fingerprint(name, code, filtered, offsets, set(), {})
    hashes, idx = winnow(all_hashes, WINDOW, remove_duplicates=False)
    keep = ~np.isin(hashes, boilerplate)
    hash_idx: dict[int, list[int]] = {}
    for value, at in zip(hashes[keep].tolist(), idx[keep].tolist(), strict=True):
        hash_idx.setdefault(value, []).append(at)
    coverage = float(get_token_coverage(hash_idx, K, len(filtered)))
    return Fingerprint(name, code, filtered, offsets, set(hash_idx), hash_idx, K, coverage)


_BOILERPLATE: dict[str, np.ndarray] = {}  # a worker's copy, set once by its initializer


def _keep_boilerplate(commons: dict[str, np.ndarray]) -> None:
    _BOILERPLATE.update(commons)


def _fingerprint_task(task: tuple[str, str]) -> Fingerprint:
    return fingerprint(task[1], _BOILERPLATE[task[0]])


def fingerprints(tasks: list[tuple[str, str]], commons: dict[str, np.ndarray]) -> list[Fingerprint]:
    """The fingerprint of each ``(exercise, code)``, stripped of that exercise's boilerplate;
    the same text is fingerprinted once (every untouched stub is one), and a class large
    enough for it is tokenized by one process a core (Pygments takes most of the time)."""
    unique = list(dict.fromkeys(tasks))
    jobs = min(os.cpu_count() or 1, max(1, len(unique) // PER_PROCESS))
    if jobs == 1:
        _keep_boilerplate(commons)
        made = [_fingerprint_task(task) for task in unique]
    else:
        with ProcessPoolExecutor(jobs, initializer=_keep_boilerplate, initargs=(commons,)) as pool:
            made = list(pool.map(_fingerprint_task, unique, chunksize=PER_PROCESS // 4))
    by_task = dict(zip(unique, made, strict=True))
    return [by_task[task] for task in tasks]


def score_matrix(prints: Sequence[Fingerprint]) -> np.ndarray:
    """Score of every pair: the rarity-weighted share of the smaller text's fingerprints that
    the other holds too (0 on the diagonal)."""
    n = len(prints)
    held_by = Counter(h for p in prints for h in p.hashes)
    weight = {h: math.log((n + 1) / count) for h, count in held_by.items()}
    totals = np.array([sum(weight[h] for h in p.hashes) for p in prints], dtype=np.float64)
    # Only fingerprints two texts hold can be shared: the product needs no other column, which
    # keeps the matrix small however many fingerprints are each student's alone.
    common = sorted(h for h, count in held_by.items() if count >= 2)
    column = {h: i for i, h in enumerate(common)}
    holds = np.zeros((n, len(common)), dtype=np.float32)
    for row, p in enumerate(prints):
        holds[row, [column[h] for h in p.hashes if h in column]] = 1.0
    weights = np.array([weight[h] for h in common], dtype=np.float32)
    shared = ((holds * weights) @ holds.T).astype(np.float64)
    smaller = np.minimum.outer(totals, totals)
    scores = np.divide(shared, smaller, out=np.zeros_like(shared), where=smaller > 0)
    np.fill_diagonal(scores, 0.0)
    return np.round(scores, 6)  # the same figures however BLAS ordered its sums


def class_spread(scores: np.ndarray, students: int) -> tuple[float, float]:
    """The median of all student pairs' scores and their robust spread (see the module)."""
    upper = scores[:students, :students][np.triu_indices(students, k=1)]
    if upper.size == 0:
        return 0.0, MIN_SPREAD
    median = float(np.median(upper))
    mad = float(np.median(np.abs(upper - median)))
    return median, max(1.4826 * mad, MIN_SPREAD)


def exercise_report(
    name: str, answers: list[Source], references: list[Source], threshold: float
) -> ExerciseReport:
    """Score one exercise's answers (fingerprinted) among themselves and against references."""
    too_short = [
        a.who for a in answers if a.print_ is None or len(a.print_.hashes) < MIN_FINGERPRINTS
    ]
    students = [a for a in answers if a.who not in too_short]
    sources = students + references
    scores = score_matrix([s.print_ for s in sources if s.print_ is not None])
    median, spread = class_spread(scores, len(students))
    above = (scores - median) / spread
    above[len(students) :, :] = -np.inf  # two references are no pair of the class
    rows, cols = np.nonzero(np.triu(above >= threshold, k=1))
    found = [
        Pair(sources[i], sources[j], float(scores[i, j]), round(float(above[i, j]), 2))
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
    ]
    found.sort(key=lambda p: (-p.score, p.first.who, p.second.who))
    return ExerciseReport(
        name, found[:MAX_CSV_ROWS], median, spread, len(students), sorted(too_short), len(found)
    )


# Reading the class and the references.


def _text(source: object) -> str:
    """A cell's source as nbformat stores it: one string, or a list of lines."""
    if isinstance(source, list):
        return "".join(line for line in source if isinstance(line, str))
    return source if isinstance(source, str) else ""


def answers_in(data: bytes) -> dict[str, str]:
    """The source of the last solution cell of each exercise in a notebook's bytes, by its
    grade_id, as grading takes it (a cell the student added with the same id is no decoy),
    and of a long one its end, where the definition Python keeps is. Read as plain JSON
    (nbformat's validation would take longer than the rest of the report), so any shape a
    student's file has gives answers or nothing, never an error."""
    try:
        notebook = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    found: dict[str, str] = {}
    for cell in cells if isinstance(cells, list) else []:
        metadata = cell.get("metadata") if isinstance(cell, dict) else None
        meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        if not isinstance(meta, dict) or cell.get("cell_type") != "code":
            continue
        name = meta.get("grade_id")
        if meta.get("solution") and name in EXERCISES:
            found[name] = _text(cell.get("source"))[-MAX_ANSWER_CHARS:]
    return found


def boilerplate(release: Path) -> dict[str, list[str]]:
    """Per exercise, what the student was given: the stub of its answer cell and every other
    code cell of the released notebook that holds it."""
    given: dict[str, list[str]] = {}
    for path in sorted(release.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        stubs = {
            str(nbgrader_meta(c).get("grade_id")): c.source
            for c in notebook.cells
            if nbgrader_meta(c).get("solution")
        }
        lesson = [
            c.source
            for c in notebook.cells
            if c.cell_type == "code" and not nbgrader_meta(c).get("solution")
        ]
        for exercise, stub in stubs.items():
            given[exercise] = [stub, *lesson]
    return given


def folders(submitted: Path) -> list[str]:
    """The folders of ``submitted/``, by name; a link or a file there is no student's."""
    if not submitted.is_dir():
        return []
    with os.scandir(submitted) as entries:
        return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))


def submitted_answers(submitted: Path, student: str, where: dict[str, str]) -> dict[str, str]:
    """The student's answer to each exercise, from the notebook the exercise was released in
    (``where``) in their folder, each read as a regular file through no link; a notebook
    that is not one, too large or not JSON gives nothing."""
    try:
        folder = safe_walk.open_below(submitted, student, ASSIGNMENT)
    except OSError:
        return {}
    found: dict[str, str] = {}
    try:
        for name in sorted(set(where.values())):
            data = safe_walk.read_regular(folder, name, MAX_NOTEBOOK_BYTES)
            if data is None:
                continue
            for exercise, code in answers_in(data).items():
                if where.get(exercise) == name:
                    found[exercise] = code
    finally:
        os.close(folder)
    return found


def course_solutions(solutions: Path = CODE_ROOT / "solutions") -> dict[str, str]:
    """Each exercise's function as the course's solutions define it (the first file that does)."""
    found: dict[str, str] = {}
    for path in sorted(solutions.glob("*.py")):
        text = path.read_text()
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name in EXERCISES:
                found.setdefault(node.name, ast.get_source_segment(text, node) or "")
    return found


def reference_files(folder: Path) -> Iterator[tuple[str, str]]:
    """``(path, code)`` of each ``.py`` and ``.ipynb`` file below ``folder`` (none when it is
    missing), walked through no link and within the safe walk's bounds."""
    try:
        top = safe_walk.open_below(folder)
    except OSError:
        return
    try:
        for found in safe_walk.walk(top):
            if not found.is_regular or not found.name.endswith((".py", ".ipynb")):
                continue
            data = safe_walk.read_regular(found.folder, found.name, MAX_NOTEBOOK_BYTES)
            if data is None:
                continue
            try:
                text = data.decode()
                if found.name.endswith(".ipynb"):
                    cells = nbformat.reads(text, as_version=4).cells
                    text = "\n\n".join(c.source for c in cells if c.cell_type == "code")
            except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
                print(
                    f"similarity: {found.path} is not UTF-8 text or a notebook: skipped",
                    file=sys.stderr,
                )
                continue
            yield found.path, text[:MAX_ANSWER_CHARS]
    except safe_walk.UntrustedEntryError as error:
        print(
            f"similarity: {folder.name}/ was not read whole ({error}): keep at most "
            f"{safe_walk.MAX_ENTRIES} files and folders there, {safe_walk.MAX_DEPTH} deep",
            file=sys.stderr,
        )
    finally:
        os.close(top)


# The report.


def marked(pair: Pair) -> tuple[Markup, Markup]:
    """Both texts of ``pair``, escaped, the passages they share marked (copydetect's slices)."""
    # Imported here: copydetect's detector module loads matplotlib's pyplot on import.
    from copydetect.detector import compare_files

    a, b = pair.first.print_, pair.second.print_
    assert a is not None and b is not None
    _, _, (slices_a, slices_b) = compare_files(a, b)
    # The marks name themselves for a screen reader, which says nothing of <mark> alone.
    left = '<mark><span class="hidden">shared passage: </span>'
    right = '<span class="hidden"> (end of shared passage)</span></mark>'
    out = []
    for code, slices in ((a.raw_code, slices_a), (b.raw_code, slices_b)):
        if len(slices) == 0 or slices.shape[1] == 0:
            out.append(Markup.escape(code))
        else:
            out.append(Markup(highlight_overlap(code, slices, left, right, escape_html=True)[0]))
    return out[0], out[1]


def render(reports: list[ExerciseReport], threshold: float, references: list[str]) -> str:
    """The report page: no script, every student text escaped by the template's autoescape."""
    env = Environment(
        loader=FileSystemLoader(Path(__file__).parent),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    template = env.get_template("similarity.html.j2")
    return template.render(
        reports=reports,
        threshold=threshold,
        references=references,
        marked=marked,
        K=K,
        WINDOW=WINDOW,
        MIN_SPREAD=MIN_SPREAD,
        MIN_FINGERPRINTS=MIN_FINGERPRINTS,
        MAX_LISTED=MAX_LISTED,
        MAX_CSV_ROWS=MAX_CSV_ROWS,
    )


def csv_rows(reports: list[ExerciseReport]) -> Iterator[tuple[object, ...]]:
    for report in reports:
        for rank, pair in enumerate(report.pairs, 1):
            yield (
                report.name,
                rank,
                pair.first.who,
                pair.second.who,
                f"{pair.score:.3f}",
                f"{pair.above:.2f}",
                f"{report.median:.3f}",
                f"{report.spread:.3f}",
            )


def build(
    root: Path, taken: list[str], threshold: float, extra: list[tuple[str, str]]
) -> list[ExerciseReport]:
    """Read the students ``taken`` under ``root`` and score every exercise, with the course's
    solutions and the ``extra`` references (path, code) besides."""
    release = root / "release" / ASSIGNMENT
    given = boilerplate(release)
    where = {  # the released notebook (file name) that holds each exercise's answer cell
        exercise: path.name
        for path in sorted(release.glob("*.ipynb"))
        for exercise in answers_in(path.read_bytes())
    }
    class_answers: dict[str, list[Source]] = {name: [] for name in EXERCISES}
    for student in taken:
        for exercise, code in submitted_answers(root / "submitted", student, where).items():
            class_answers[exercise].append(Source(student, code))
    solutions = course_solutions()
    references_of: dict[str, list[Source]] = {}
    for exercise in EXERCISES:
        own = exercise in solutions
        refs = [Source(f"course solution ({exercise})", solutions[exercise])] if own else []
        references_of[exercise] = refs + [Source(f"reference {path}", code) for path, code in extra]
    commons = {name: boilerplate_hashes(given.get(name, [])) for name in EXERCISES}
    every = [(name, s) for name in EXERCISES for s in class_answers[name] + references_of[name]]
    made = fingerprints([(name, s.code) for name, s in every], commons)
    for (_, source), print_ in zip(every, made, strict=True):
        source.print_ = print_
    return [
        exercise_report(name, class_answers[name], references_of[name], threshold)
        for name in EXERCISES
    ]


def run(root: Path, threshold: float = DEFAULT_THRESHOLD, references: Path = REFERENCES) -> int:
    """Write the report and its CSV under ``root``; 1, with nothing written, when the class
    or the released notebooks are missing."""
    root = root.resolve()
    if not (root / "release" / ASSIGNMENT).is_dir():
        print(
            f"no release/{ASSIGNMENT}/ here: run `make notebooks` first (its stubs and lesson "
            "code are what every student was given, left out of the comparison)",
            file=sys.stderr,
        )
        return 1
    # The students of the class, as grading takes them (a safe id, in roster.csv if any).
    roster = read_roster(root)
    every = folders(root / "submitted")
    taken = [name for name in every if why_not_a_student(name, roster) is None]
    if not taken:
        print(
            "no submissions in submitted/: collect them first (make autograde does)",
            file=sys.stderr,
        )
        return 1
    if left_out := len(every) - len(taken):
        print(
            f"{left_out} folder(s) of submitted/ are no student of the class and were not "
            "compared; make check-class names them"
        )
    references = references if references.is_absolute() else root / references
    if not references.is_dir():
        print(f"no folder {references.name}/: the course's solutions are the only references")
    extra = list(reference_files(references))
    reports = build(root, taken, threshold, extra)
    with replacing(root / HTML_OUT, PRIVATE) as out:
        out.write(render(reports, threshold, [path for path, _ in extra]))
    write_csv(root / CSV_OUT, CSV_HEADER, csv_rows(reports), mode=PRIVATE)
    for report in reports:
        print(f"{report.name}: {report.found} pairs listed, {report.compared} answers compared")
    print(f"wrote {HTML_OUT} and {CSV_OUT} (readable by you alone)")
    return 0
