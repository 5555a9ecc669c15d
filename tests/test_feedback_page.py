"""The feedback page's parts, without nbgrader's pipeline (``tests/test_feedback_browser.py``
runs that): test cell titles, the embedded MathJax, and an exporter other settings cannot
turn back into nbgrader's default page."""

from __future__ import annotations

import base64
import gzip
import re

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from traitlets.config import Config

from autograder.nbgrader_steps.feedback_page import (
    TEMPLATE_FILE,
    TEMPLATE_NAME,
    FeedbackExporter,
    FeedbackPage,
    cell_title,
)


def test_each_test_cell_gets_a_title_saying_what_it_tests() -> None:
    assert cell_title("test_merge_and_update_hidden_core") == (
        "merge_and_update: hidden tests on the worked examples and edge cases"
    )
    assert cell_title("test_encode_bpe_examples") == (
        "encode_bpe: the visible tests (the lesson's examples)"
    )
    assert cell_title("intro") == "Test cell intro"


def test_the_page_gets_mathjax_to_embed_and_the_titles_of_its_test_cells() -> None:
    test = new_code_cell("assert True")
    test.metadata["nbgrader"] = {"grade": True, "grade_id": "test_pair_counts_examples"}
    answer = new_code_cell("def pair_counts(w): ...")
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "pair_counts"}
    nb = new_notebook(cells=[new_markdown_cell("$n$"), answer, test])
    before = nbformat.writes(nb)
    _, resources = FeedbackPage().preprocess(nb, {})
    page = resources["bpe_feedback"]
    assert page["titles"] == {
        "test_pair_counts_examples": "pair_counts: the visible tests (the lesson's examples)"
    }
    assert 200_000 < len(page["mathjax"]) < 500_000  # tex-chtml.js and fonts, compressed
    source = gzip.decompress(base64.b64decode(page["mathjax"])).decode("utf-8")
    assert "MathJax" in source and "data:font/woff;base64," in source
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", page["mathjax"])  # safe in a <script> string
    assert nbformat.writes(nb) == before  # no cell changed


def test_the_exporter_keeps_the_course_page_whatever_other_tools_set() -> None:
    config = Config()
    config.HTMLExporter.template_name = "feedback"  # what nbgrader's formgrader sets
    exporter = FeedbackExporter(config=config)
    assert (exporter.template_name, exporter.template_file) == (TEMPLATE_NAME, TEMPLATE_FILE)
    assert exporter.template.name == TEMPLATE_FILE  # found, with nbgrader's page to extend
