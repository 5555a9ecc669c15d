"""The course's feedback page: nbgrader's, plus formulas drawn offline, wrapped messages,
ruled tables and test cells named by what they test.

- ``FeedbackExporter`` (``GenerateFeedback.exporter_class`` in ``nbgrader_config.py``) is
  nbgrader's HTML exporter drawing with ``feedback_template/bpe_feedback/page.html.j2``, which
  extends nbgrader's feedback template, with nbconvert's ``sanitize_html`` on (outputs'
  HTML through bleach); other tools' exporter settings do not reach it. Its markdown filter
  writes the formulas as MathML (``math_as_mathml``), which browsers draw and screen readers
  read with no script: the page holds no MathJax (it was 450 KB of a 630 KB page), loads
  nothing and links to none of the instructor's files.
- ``FeedbackPage`` (a ``generate_feedback`` preprocessor) puts in the resources a title for
  each test cell.

But: it changes no cell, score or message.

>>> cell_title("test_merge_pair_hidden_random")
'merge_pair: hidden tests on random inputs'
>>> cell_title("test_pair_counts_examples")
"pair_counts: the visible tests (the lesson's examples)"
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import nbgrader
from jinja2 import pass_context as contextfilter
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from traitlets.config import Config

from autograder.course import exercise_of
from autograder.shared.math_as_mathml import markdown_to_html
from bpe_course.lesson_cells import nbgrader_meta

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


class FeedbackPage(Preprocessor):
    """Adds ``resources["bpe_feedback"]``: the ``titles`` of the test cells."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.enabled = True  # nbgrader registers feedback steps disabled; see redact_feedback

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        titles = {}
        for cell in nb.cells:
            meta = nbgrader_meta(cell)
            if meta.get("grade") and meta.get("grade_id") and not meta.get("solution"):
                titles[meta["grade_id"]] = cell_title(meta["grade_id"])
        resources["bpe_feedback"] = {"titles": titles}
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

    @contextfilter
    def markdown2html(self, context: Any, source: str) -> str:
        """nbconvert's markdown filter, the formulas written as MathML."""
        return markdown_to_html(self, context, source)
