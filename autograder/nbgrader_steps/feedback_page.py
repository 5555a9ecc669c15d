"""The course's feedback page: nbgrader's, plus offline formulas, wrapped messages, ruled
tables and test cells named by what they test.

- ``FeedbackExporter`` (``GenerateFeedback.exporter_class`` in ``nbgrader_config.py``) is
  nbgrader's HTML exporter drawing with ``feedback_template/bpe_feedback/page.html.j2``, which
  extends nbgrader's feedback template, with nbconvert's ``sanitize_html`` on (outputs'
  HTML through bleach); other tools' exporter settings do not reach it.
- ``FeedbackPage`` (a ``generate_feedback`` preprocessor) puts in the resources a copy of
  MathJax to embed and a title for each test cell. The copy is MathJax 3's single-file
  ``tex-chtml.js`` (TeX in, HTML out, assistive MathML included) from the installed
  ``django-static-mathjax`` package, with the fonts the lessons' formulas use inlined as
  ``data:`` URLs, gzip-compressed and base64-encoded (about 350 KB instead of 2.1 MB for
  ``tex-svg.js``); the page unpacks it with the browser's ``DecompressionStream``. No CDN, no
  link to the instructor's files, nothing to fetch.

But: it changes no cell, score or message.

>>> cell_title("test_merge_pair_hidden_random")
'merge_pair: hidden tests on random inputs'
>>> cell_title("test_pair_counts_examples")
"pair_counts: the visible tests (the lesson's examples)"
"""

from __future__ import annotations

import base64
import copy
import gzip
import importlib.util
from functools import cache
from pathlib import Path

import nbgrader
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from traitlets.config import Config

from autograder.course import exercise_of

TEMPLATES = Path(__file__).with_name("feedback_template")  # holds bpe_feedback/
NBGRADER_TEMPLATES = str(
    Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
)
TEMPLATE_NAME = "bpe_feedback"
TEMPLATE_FILE = "page.html.j2"
# What each test cell of an exercise checks, by the end of its grade_id.
GROUPS = {
    "examples": "the visible tests (the lesson's examples)",
    "hidden_core": "hidden tests on the worked examples and edge cases",
    "hidden_random": "hidden tests on random inputs",
}


def cell_title(grade_id: str) -> str:
    """A test cell's title in the feedback page, from its grade_id."""
    name = exercise_of(grade_id)
    if name is None:
        return f"Test cell {grade_id}"
    group = grade_id.removeprefix(f"test_{name}_")
    return f"{name}: {GROUPS.get(group, group.replace('_', ' '))}"


# The CHTML fonts inlined: digits, operators and brackets, italic letters and Greek, big
# delimiters. Others (bold, AMS, calligraphic …) are asked of a folder no page has, and the
# browser's own fonts stand in for them.
EMBEDDED_FONTS = (
    "MathJax_Zero",
    "MathJax_Main-Regular",
    "MathJax_Math-Italic",
    "MathJax_Size1-Regular",
    "MathJax_Size2-Regular",
    "MathJax_Size3-Regular",
    "MathJax_Size4-Regular",
)


def mathjax_folder() -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "feedback pages embed MathJax from the django-static-mathjax package: run `make venv`"
        )
    return Path(spec.origin).parent / "static" / "mathjax" / "es5"


@cache
def mathjax_source() -> str:
    """MathJax 3's tex-chtml.js with the fonts inlined, gzip-compressed, in base64: text that
    can sit in a JavaScript string inside a <script> element."""
    folder = mathjax_folder()
    text = (folder / "tex-chtml.js").read_text(encoding="utf-8")
    for font in EMBEDDED_FONTS:
        woff = (folder / "output" / "chtml" / "fonts" / "woff-v2" / f"{font}.woff").read_bytes()
        inline = "data:font/woff;base64," + base64.b64encode(woff).decode("ascii")
        text = text.replace(f"%%URL%%/{font}.woff", inline)
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)  # same bytes each run
    return base64.b64encode(packed).decode("ascii")


class FeedbackPage(Preprocessor):
    """Adds ``resources["bpe_feedback"]``: ``mathjax`` (the script) and ``titles``."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.enabled = True  # nbgrader registers feedback steps disabled; see redact_feedback

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        titles = {}
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") and meta.get("grade_id") and not meta.get("solution"):
                titles[meta["grade_id"]] = cell_title(meta["grade_id"])
        resources["bpe_feedback"] = {"mathjax": mathjax_source(), "titles": titles}
        return nb, resources


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback exporter with the course's page template, whatever the exporter
    settings of other tools (nbgrader's formgrader sets ``HTMLExporter.template_name``)."""

    def __init__(self, config: Config | None = None, **kwargs: object) -> None:
        config = copy.deepcopy(config) if config is not None else Config()
        # The course's page extends nbgrader's feedback page, in nbgrader's templates folder.
        given = config.HTMLExporter.get("extra_template_basedirs", [])
        folders = [*given, NBGRADER_TEMPLATES, str(TEMPLATES)]
        config.FeedbackExporter.extra_template_basedirs = list(dict.fromkeys(folders))
        config.FeedbackExporter.template_name = TEMPLATE_NAME
        config.FeedbackExporter.template_file = TEMPLATE_FILE
        # HTML, SVG and script outputs through bleach, should one get past PlainOutputs.
        # Markdown cells are drawn by nbgrader's template, which does not clean them: that is
        # markup_as_text's work.
        config.FeedbackExporter.sanitize_html = True
        super().__init__(config=config, **kwargs)
