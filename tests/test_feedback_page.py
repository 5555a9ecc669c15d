"""The feedback page's parts, without nbgrader's pipeline (``tests/test_feedback_browser.py``
runs that): test cell titles, formulas written as MathML (a student's TeX included, which
must never become markup), an exporter other settings cannot turn back into nbgrader's
default page, and its templates compiled once a process, the same page drawn from them."""

from __future__ import annotations

from html.parser import HTMLParser

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from traitlets.config import Config

from autograder.plugins.feedback import (
    ELEMENTS,
    TEMPLATE_FILE,
    TEMPLATE_NAME,
    FeedbackExporter,
    FeedbackPage,
    cell_title,
    to_mathml,
)


def test_each_test_cell_gets_a_title_saying_what_it_tests() -> None:
    assert cell_title("test_merge_and_update_hidden_core") == (
        "merge_and_update: hidden tests on the worked examples and edge cases"
    )
    assert cell_title("test_encode_bpe_examples") == (
        "encode_bpe: the visible tests (the lesson's examples)"
    )
    assert cell_title("intro") == "Test cell intro"


def test_the_page_gets_the_titles_of_its_test_cells() -> None:
    test = new_code_cell("assert True")
    test.metadata["nbgrader"] = {"grade": True, "grade_id": "test_pair_counts_examples"}
    answer = new_code_cell("def pair_counts(w): ...")
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "pair_counts"}
    nb = new_notebook(cells=[new_markdown_cell("$n$"), answer, test])
    before = nbformat.writes(nb)
    _, resources = FeedbackPage().preprocess(nb, {})
    assert resources["bpe_feedback"] == {
        "titles": {
            "test_pair_counts_examples": "pair_counts: the visible tests (the lesson's examples)"
        }
    }
    assert nbformat.writes(nb) == before  # no cell changed


class Tags(HTMLParser):
    """Every start tag of a page and its attributes, as a browser's parser reads them."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.found.append((tag, dict(attrs)))


def test_the_markdown_filter_writes_formulas_as_mathml() -> None:
    html = FeedbackExporter().markdown2html({}, "Pairs: $n - 1$, and\n\n$$V = b + m$$\n")
    tags = Tags(html).found
    maths = [attrs for tag, attrs in tags if tag == "math"]
    # Drawn by the browser with no script; the TeX is there for a reader without MathML.
    assert maths == [
        {"display": "inline", "alttext": "n - 1"},
        {"display": "block", "alttext": "V = b + m"},
    ]
    assert "$" not in html
    assert {tag for tag, _ in tags} <= ELEMENTS | {"p"}


# A student's markdown cell is drawn with the same filter. latex2mathml writes \text{…} back
# unescaped and makes attributes of \href, \style and \color.
HOSTILE = [
    r"\text{</math><img src=x onerror=alert(1)><script>alert(2)</script>}",
    r"\href{javascript:alert(3)}{x}",
    r"\style{background:url(https://example.org/x)}{y}",
    r"\color{red\" onmouseover=\"alert(4)}{z}",
    r"\text{&#x3C;script&#x3E;} \mathrm{<b>}",
    r"\text{&#xD800;&#x110000;}",  # no character: kept as written, the page still writes
]


def test_a_students_tex_never_becomes_markup() -> None:
    for tex in HOSTILE:
        html = to_mathml(tex)
        tags = Tags(html).found
        assert {tag for tag, _ in tags} <= ELEMENTS, tex
        attributes = {name for _, attrs in tags for name in attrs}
        assert attributes <= {"display", "alttext", "mathvariant", "stretchy"}, tex
        html.encode("utf-8")  # every character writable
    # The text stays readable as text.
    assert "<mtext>&lt;/math&gt;&lt;img\xa0src=x" in to_mathml(HOSTILE[0])  # spaces: nbsp
    page = FeedbackExporter().markdown2html({}, "$" + HOSTILE[0] + "$ and $x^{$")
    assert "<script" not in page and "<img" not in page
    # TeX latex2mathml cannot read is shown as TeX, escaped, as nbconvert left it.
    assert page.endswith(" and $x^{$</p>\n")


def test_the_exporter_keeps_the_course_page_whatever_other_tools_set() -> None:
    config = Config()
    config.HTMLExporter.template_name = "feedback"  # what nbgrader's formgrader sets
    exporter = FeedbackExporter(config=config)
    assert (exporter.template_name, exporter.template_file) == (TEMPLATE_NAME, TEMPLATE_FILE)
    assert exporter.template.name == TEMPLATE_FILE  # found, with nbgrader's page to extend


def test_no_configuration_turns_the_redaction_off() -> None:
    """Redaction is what keeps hidden tests out of feedback: a config that switches nbgrader's
    preprocessors off (``enabled = False``) must leave it on."""
    from traitlets.config import Config

    from autograder.plugins.feedback import RedactHiddenTests

    for section in ("RedactHiddenTests", "NbGraderPreprocessor", "Preprocessor"):
        config = Config({section: {"enabled": False}})
        assert RedactHiddenTests(config=config).enabled is True, section


def _compiles(monkeypatch) -> list[str]:
    """The names of the templates Jinja compiles from now on, in order."""
    from jinja2 import Environment

    compiled: list[str] = []
    compile_ = Environment.compile

    def counted(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return compile_(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(Environment, "compile", counted)
    return compiled


def test_a_second_exporter_compiles_no_template_and_draws_the_same_page(monkeypatch) -> None:
    """nbgrader makes an exporter per student: the page's templates are compiled by the
    first one of the process only, and a page drawn from the kept code is the same, byte for
    byte, as one drawn by an environment that compiled everything itself."""
    import nbgrader

    from autograder.plugins import feedback

    # Where nbgrader's GenerateFeedback tells the exporter its page's stylesheet is.
    css = "server_extensions/formgrader/static/node_modules/bootstrap/dist/css"
    config = Config()
    config.HTMLExporter.extra_template_paths = [f"{nbgrader.__path__[0]}/{css}"]
    notebook = new_notebook(cells=[new_markdown_cell("Pairs: $n - 1$"), new_code_cell("1 + 1")])
    # What nbgrader's GetGrades puts in the resources of a page.
    grades = {"nbgrader": {"notebook": "01", "score": 1.0, "max_score": 2.0, "late_penalty": 0}}
    monkeypatch.setattr(feedback, "_COMPILED", {})
    compiled = _compiles(monkeypatch)
    first, _ = FeedbackExporter(config=config).from_notebook_node(notebook, dict(grades))
    assert TEMPLATE_FILE in compiled
    compiled.clear()
    second, _ = FeedbackExporter(config=config).from_notebook_node(notebook, dict(grades))
    assert compiled == []

    class Uncached(FeedbackExporter):
        def _create_environment(self):
            return super(FeedbackExporter, self)._create_environment()

    fresh, _ = Uncached(config=config).from_notebook_node(notebook, dict(grades))
    assert TEMPLATE_FILE in compiled
    assert first == second == fresh


def test_a_changed_template_is_compiled_again(tmp_path, monkeypatch) -> None:
    from jinja2 import Environment, FileSystemLoader, pass_context

    from autograder.plugins import feedback

    monkeypatch.setattr(feedback, "_COMPILED", {})
    page = tmp_path / "page.j2"

    def draw() -> str:
        environment = Environment(loader=FileSystemLoader(tmp_path))
        environment.filters["shout"] = str.upper
        environment.bytecode_cache = feedback.compiled_templates(environment)
        return environment.get_template("page.j2").render(name="ada")

    page.write_text("hello {{ name | shout }}")
    assert draw() == draw() == "hello ADA"
    page.write_text("goodbye {{ name }}")
    assert draw() == "goodbye ada"
    # A filter that takes the template's context is called differently: never the same code.
    plain = Environment()
    plain.filters["shout"] = str.upper
    context = Environment()
    context.filters["shout"] = pass_context(lambda ctx, text: text.upper())
    assert feedback.compiled_templates(plain) is not feedback.compiled_templates(context)
