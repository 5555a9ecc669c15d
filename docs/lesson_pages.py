"""The four lessons as site pages: the student notebooks of notebooks/, run once, with outputs.

For each notebook it runs, in a fresh kernel whose working folder is notebooks/, the cells
that come before the first exercise (the tables, the plots, the widget), and keeps the run in
a cache folder under a key made of the notebook's bytes, every file of ``bpe_course`` and this
file: a rebuild with nothing changed starts no kernel. The page then gets the exercise stubs
and their visible tests as code without outputs, a note saying why, and, in place of each
widget, a still drawing with a note that it moves only in Jupyter: the "Watch it learn"
widget is drawn on the text it was saved with after its first few merges (a fresh one,
stepped here), any other widget as it was saved.

But: it reads notebooks/ only, never source/ (the masters hold solutions and hidden tests),
so a page can show nothing a student does not already have; it runs no cell from the
first exercise on, since those need a student's answers; and a widget it cannot draw is left
out of the still rather than shown as a model name.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
CELL_TIMEOUT = 600

EXERCISE_NOTE = (
    "```{note}\n"
    "From here on this page shows the exercises as a student gets them: the stubs and the\n"
    "visible tests, not run, since they need your answers. To do them, open the notebook in\n"
    "JupyterLab (`make lab`, or the steps of the students' guide).\n"
    "```"
)
STILL_MERGES = 4  # the still shows the widget after this many merges
WIDGET_NOTE = (
    "```{note}\n"
    "On this page the widget stands still: what you see is the widget on its own text\n"
    f"after {STILL_MERGES} merges, drawn when the page was built. Its buttons, number box and\n"
    "text box move only in Jupyter: to play with it, run this lesson's notebook in JupyterLab,\n"
    "or run `make widget` to serve the widget alone.\n"
    "```"
)


def lesson_paths() -> list[Path]:
    """The student notebooks, in lesson order."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def first_exercise(nb) -> tuple[int, int]:
    """(where the first exercise's text starts, its first answer or test cell); both are
    ``len(nb.cells)`` in a lesson with no exercise.

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("intro")])
    >>> first_exercise(nb)
    (1, 1)
    """
    end = len(nb.cells)
    graded = next(
        (
            i
            for i, c in enumerate(nb.cells)
            if _nbgrader(c).get("solution") or _nbgrader(c).get("grade")
        ),
        end,
    )
    text = next(
        (i for i, c in enumerate(nb.cells[:graded]) if _nbgrader(c).get("grade_id")), graded
    )
    return text, graded


def cache_key(path: Path) -> str:
    """What a run's outputs depend on: the notebook, the library it imports, this file."""
    digest = hashlib.sha256(path.read_bytes())
    library = ROOT / "bpe_course"
    for name in sorted(
        p for p in library.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(str(name.relative_to(library)).encode() + b"\0" + name.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:20]


def run_lesson(path: Path, cache: Path) -> tuple[nbformat.NotebookNode, bool]:
    """The notebook with the cells before its first exercise run; and whether it came from
    the cache."""
    cached = cache / f"{path.stem}-{cache_key(path)}.ipynb"
    if cached.exists():
        return nbformat.read(cached, as_version=4), True
    nb = nbformat.read(path, as_version=4)
    _, graded = first_exercise(nb)
    head = copy.deepcopy(nb)
    head.cells = nb.cells[:graded]
    # The kernel draws inline pictures only when no other matplotlib backend is forced on it.
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    client = NotebookClient(
        head,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    client.execute(env=env)
    nb.cells[:graded] = head.cells
    if "widgets" in head.metadata:
        nb.metadata["widgets"] = head.metadata["widgets"]
    cache.mkdir(parents=True, exist_ok=True)
    for stale in cache.glob(f"{path.stem}-*.ipynb"):
        stale.unlink()
    nbformat.write(nb, cached)
    return nb, False


# --- the widget, drawn from its saved state ---------------------------------------------------


def _model(state: dict, ref: str) -> dict:
    return state.get(ref.removeprefix("IPY_MODEL_"), {})


def _layout_style(state: dict, model: dict) -> str:
    layout = _model(state, model.get("state", {}).get("layout", ""))
    keep = ("flex", "width", "min_width", "max_width", "margin", "padding")
    parts = [
        f"{key.replace('_', '-')}: {value}"
        for key in keep
        if (value := layout.get("state", {}).get(key)) not in (None, "")
    ]
    return html.escape("; ".join(parts))


def draw_widget(state: dict, ref: str) -> str:
    """HTML for one widget model and its children, as it stood when the notebook was saved.

    >>> state = {"b": {"model_name": "ButtonModel", "state": {"description": "Next"}}}
    >>> draw_widget(state, "IPY_MODEL_b")
    '<button type="button" class="bpe-still-button" disabled>Next</button>'
    """
    model = _model(state, ref)
    name = model.get("model_name", "")
    values = model.get("state", {})
    style = _layout_style(state, model)
    style_attr = f' style="{style}"' if style else ""
    label = html.escape(str(values.get("description") or ""))
    if name in ("VBoxModel", "HBoxModel", "BoxModel", "GridBoxModel"):
        kind = "hbox" if name == "HBoxModel" else "vbox"
        inner = "".join(draw_widget(state, child) for child in values.get("children", []))
        return f'<div class="bpe-still-{kind}"{style_attr}>{inner}</div>'
    if name == "HTMLModel":
        return f'<div class="bpe-still-html"{style_attr}>{values.get("value", "")}</div>'
    if name in ("TextareaModel", "TextModel"):
        text = html.escape(str(values.get("value", "")))
        name_attr = label or "text"
        return (
            f'<textarea class="bpe-still-text" readonly aria-label="{name_attr}">{text}</textarea>'
        )
    if name == "ButtonModel":
        return f'<button type="button" class="bpe-still-button" disabled>{label}</button>'
    if name in ("BoundedIntTextModel", "IntTextModel", "BoundedFloatTextModel", "FloatTextModel"):
        low, high, value = values.get("min", ""), values.get("max", ""), values.get("value", "")
        return (
            f'<label class="bpe-still-number">{label} <input type="number" min="{low}" '
            f'max="{high}" value="{value}" disabled></label>'
        )
    if name in ("IntSliderModel", "FloatSliderModel"):
        low, high, value = values.get("min", 0), values.get("max", 0), values.get("value", 0)
        return (
            f'<label class="bpe-still-slider">{label} <input type="range" min="{low}" '
            f'max="{high}" value="{value}" disabled> <output>{value}</output></label>'
        )
    return ""  # a control this page cannot draw is left out, never shown as a model name


def step_the_stepper(state: dict, ref: str, merges: int = STILL_MERGES) -> tuple[dict, str]:
    """The "Watch it learn" widget saved at ``ref``, as a fresh one on the same text after
    ``merges`` merges (its state and reference); any other widget as it was saved."""
    root = _model(state, ref).get("state", {})
    if "bpe-watch-it-learn" not in root.get("_dom_classes", []):
        return state, ref
    import ipywidgets

    from bpe_course.widget import WatchItLearn

    boxes = [m for m in state.values() if m.get("model_name") == "TextareaModel"]
    text = boxes[0]["state"].get("value", "") if boxes else ""
    widget = WatchItLearn(text)
    for _ in range(merges):
        widget.next_button.click()
    live = ipywidgets.Widget.get_manager_state()["state"]
    return live, f"IPY_MODEL_{widget.model_id}"


def freeze_widgets(nb) -> int:
    """Replaces every widget output with its still drawing (and a note); returns how many."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    frozen = 0
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        had_widget = False
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            drawing = draw_widget(*step_the_stepper(state, view["model_id"]))
            output["data"] = {
                "text/html": f'<div class="bpe-still-widget">{drawing}</div>',
                "text/plain": "The widget, as it stood when the notebook ran.",
            }
            had_widget = True
            frozen += 1
        if had_widget:
            cells.append(nbformat.v4.new_markdown_cell(WIDGET_NOTE))
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return frozen


def _scrub(nb) -> None:
    """Takes this machine's course folder out of the outputs: a page names no one's disk."""
    where = str(ROOT) + os.sep

    def clean(value):
        if isinstance(value, str):
            return value.replace(where, "")
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = clean(output["text"])
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    output["data"][mime] = clean(value)


def page_notebook(nb) -> nbformat.NotebookNode:
    """The notebook as the page shows it: widget frozen, the exercise note, no grading data."""
    nb = copy.deepcopy(nb)
    text, _ = first_exercise(nb)
    if text < len(nb.cells):
        nb.cells.insert(text, nbformat.v4.new_markdown_cell(EXERCISE_NOTE))
    freeze_widgets(nb)
    _scrub(nb)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    nb.metadata = {
        "kernelspec": nb.metadata.get("kernelspec", {}),
        "language_info": {"name": "python"},
    }
    return nb


def build_lessons(dest: Path, cache: Path, log=print) -> list[str]:
    """Writes each lesson's page notebook into ``dest``; returns their page names."""
    names = []
    for path in lesson_paths():
        nb, hit = run_lesson(path, cache)
        page = page_notebook(nb)
        log(f"lesson {path.name}: {'cached run' if hit else 'ran now'}")
        text = json.dumps(nbformat.from_dict(page), indent=1, ensure_ascii=False) + "\n"
        write_if_changed(dest / path.name, text)
        names.append(path.stem)
    return names


def write_if_changed(path: Path, text: str) -> None:
    """Writes text unless the file already holds it, so Sphinx rereads only what changed."""
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
