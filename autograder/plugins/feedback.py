"""The course's feedback page: nbgrader's, with hidden tests redacted, formulas drawn offline,
wrapped messages, ruled tables and test cells named by what they test.

- ``RedactHiddenTests`` (a ``generate_feedback`` preprocessor in ``nbgrader_config.py``) keeps
  each failed check's message, not how checks work: it removes the hidden tests' lines, cuts
  tracebacks to the message in hidden-test cells, drops frames from ``autograder/``,
  ``solutions/`` and the checks' modules of ``bpe_course`` elsewhere, and turns a timeout's
  bare interrupt into one sentence naming the limit.
- ``FeedbackPage`` (another) puts in the resources a title for each test cell.
- ``FeedbackExporter`` (``GenerateFeedback.exporter_class``) is nbgrader's HTML exporter drawing
  with ``feedback_template/bpe_feedback/page.html.j2``, which extends nbgrader's feedback
  template, with nbconvert's ``sanitize_html`` on (outputs' HTML through bleach); other tools'
  exporter settings do not reach it, and its compiled templates stay in the process
  (``CompiledTemplates``: nbgrader makes an exporter per student). Its markdown filter
  (``markdown2html``, nbconvert's with the math hooks replaced) writes each ``$…$``,
  ``$$…$$`` and ``\\begin{…}…\\end{…}`` through ``latex2mathml`` as a ``<math>`` element,
  which browsers draw and screen readers read with no script (the TeX kept as ``alttext``):
  the page holds no MathJax (it was 450 KB of a 630 KB page), loads nothing and links to none
  of the instructor's files.

Markdown cells can be a student's, so latex2mathml's output is not trusted: it writes
``\\text{…}`` back unescaped and turns ``\\href``, ``\\style`` and ``\\color`` into attributes.
The tree it builds is written out again here, every text escaped, with MathML's presentation
elements and layout attributes only; anything else, or TeX it cannot read, is shown as the
escaped TeX between its dollars, as nbconvert left it.

But: it changes only the feedback copy, never the autograded notebook or a score (nor any
other row of the gradebook); it draws only TeX that latex2mathml knows (the lessons' formulas
are plain algebra), and formulas in outputs (``text/latex``) stay as the output step left them.

>>> cell_title("test_merge_pair_hidden_random")
'merge_pair: hidden tests on random inputs'
>>> cell_title("test_pair_counts_examples")
"pair_counts: the visible tests (the lesson's examples)"

>>> to_mathml("n \\\\cdot c")
'<math display="inline" alttext="n \\\\cdot c"><mrow><mi>n</mi><mo>·</mo><mi>c</mi></mrow></math>'

>>> from nbformat.v4 import new_code_cell, new_notebook, new_output
>>> cell = new_code_cell("# visible\\n### BEGIN HIDDEN TESTS\\ncheck()\\n### END HIDDEN TESTS")
>>> cell.metadata["nbgrader"] = {"grade": True, "grade_id": "t", "points": 1}
>>> cell.outputs = [new_output("error", ename="AssertionError", evalue="wrong on 'ab'",
...                            traceback=["Traceback", "File /x/autograder/run.py", "..."])]
>>> nb, _ = RedactHiddenTests().preprocess(new_notebook(cells=[cell]), {})
>>> nb.cells[0].source
'# visible'
>>> nb.cells[0].outputs[0].traceback
["AssertionError: wrong on 'ab'"]
"""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import nbgrader
from jinja2 import BytecodeCache, Environment
from jinja2 import pass_context as contextfilter
from jinja2.bccache import Bucket
from latex2mathml.converter import convert_to_element
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbformat import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Bool
from traitlets.config import Config

from autograder.course import exercise_of
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.selfcheck import BEGIN_HIDDEN, TIMED_OUT, visible_source

# MathML's presentation elements (MathML Core and the MathML 3 ones latex2mathml writes).
ELEMENTS = frozenset(
    {
        *("math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot"),
        *("mstyle", "merror", "mpadded", "mphantom", "menclose", "msub", "msup", "msubsup"),
        *("munder", "mover", "munderover", "mmultiscripts", "mprescripts", "none"),
        *("mtable", "mtr", "mtd"),
    }
)
# Layout attributes; no href, style, colour or event handler.
ATTRIBUTES = frozenset(
    {
        *("display", "alttext", "mathvariant", "stretchy", "fence", "separator", "largeop"),
        *("movablelimits", "accent", "accentunder", "lspace", "rspace", "minsize", "maxsize"),
        *("symmetric", "form", "width", "height", "depth", "voffset", "linethickness"),
        *("displaystyle", "scriptlevel", "columnalign", "columnlines", "columnspacing"),
        *("rowalign", "rowlines", "rowspacing", "frame", "notation", "mathsize", "linebreak"),
    }
)
# latex2mathml puts characters into texts as entities of its own making (``&#x000B7;``).
ENTITY = re.compile(r"&#x([0-9A-Fa-f]{1,6});")


def _character(match: re.Match) -> str:
    code = int(match.group(1), 16)
    # A surrogate or a number past Unicode would make the page unwritable: kept as written.
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group(0)


def _text(text: str | None) -> str:
    return html.escape(ENTITY.sub(_character, text or ""), quote=False)


def _write(element: Element, out: list[str]) -> None:
    tag = element.tag
    if tag not in ELEMENTS:
        raise ValueError(f"latex2mathml made {tag}, which is not presentation MathML")
    out.append(f"<{tag}")
    for name, value in element.attrib.items():
        if name in ATTRIBUTES:
            out.append(f' {name}="{html.escape(value, quote=True)}"')
    out.append(">" + _text(element.text))
    for child in element:
        _write(child, out)
        out.append(_text(child.tail))
    out.append(f"</{tag}>")


def to_mathml(tex: str, display: str = "inline") -> str:
    """``tex`` as a ``<math>`` element; raises for TeX latex2mathml cannot read or that makes
    something other than presentation MathML."""
    math = convert_to_element(tex, display=display)
    # In HTML, <math> is MathML by its name; the TeX is what a reader without MathML gets.
    math.attrib = {"display": display, "alttext": tex.strip()}
    out: list[str] = []
    _write(math, out)
    return "".join(out)


def math_or_tex(tex: str, display: str, shown: str) -> str:
    """MathML for ``tex``, or ``shown`` (the escaped TeX as nbconvert writes it) when it fails."""
    try:
        return to_mathml(tex, display)
    except Exception:  # latex2mathml raises many kinds for TeX it cannot read
        return shown


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, writing formulas as MathML instead of TeX for MathJax."""

    def inline_math(self, body: str) -> str:
        return math_or_tex(body, "inline", super().inline_math(body))

    def block_math(self, body: str) -> str:
        return math_or_tex(body, "block", super().block_math(body))

    def latex_environment(self, name: str, body: str) -> str:
        tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return math_or_tex(tex, "block", super().latex_environment(name, body))


# Where the instructors' code and the checks' own code live; frames from there are not the
# student's business (the checks that the lessons share with the self-check are in bpe_course).
CHECKERS = "examples|feedback|mistakes|outcomes|variants"
PRIVATE_PATHS = re.compile(
    rf"[/\\](autograder|solutions)[/\\]|[/\\]bpe_course[/\\]({CHECKERS})\.py"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIME_LIMIT = "TimeLimit"


def time_limit_message(seconds: object) -> str:
    """What a student reads for a cell that ran out of time.

    >>> time_limit_message(10).split(", ")[0]
    'this cell ran longer than the 10 s limit'
    """
    limit = f"the {seconds} s limit" if seconds else "the time limit"
    return (
        f"this cell ran longer than {limit}, so its tests score 0: look for a loop that never ends"
    )


def is_private_frame(frame: str) -> bool:
    return bool(PRIVATE_PATHS.search(ANSI.sub("", frame)))


# Both steps are NbGraderPreprocessors: nbgrader registers feedback steps without enabling
# them, and a disabled nbconvert Preprocessor is skipped without a word, which would show the
# hidden tests. So the redaction is on always: no configuration (a stray
# c.NbGraderPreprocessor.enabled = False) can turn it off.
class RedactHiddenTests(NbGraderPreprocessor):
    """Keeps failure messages in feedback; removes hidden test source and checker frames."""

    enabled = Bool(True, help="Always on; not a setting.")

    def preprocess_cell(
        self, cell: NotebookNode, resources: dict, index: int
    ) -> tuple[NotebookNode, dict]:
        if cell.cell_type != "code":
            return cell, resources
        hidden = BEGIN_HIDDEN in cell.source
        if hidden:
            cell.source = visible_source(cell.source).rstrip("\n")
        cell.outputs = self._explain_timeouts(cell.get("outputs", []), hidden)
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error" or output.get("ename") == TIME_LIMIT:
                continue
            if hidden:
                output["traceback"] = [
                    f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                ]
            else:
                output["traceback"] = [
                    frame for frame in output.get("traceback", []) if not is_private_frame(frame)
                ]
        return cell, resources

    def _time_limit(self) -> object:
        for section in ("Execute", "ExecutePreprocessor"):
            seconds = self.config.get(section, {}).get("timeout")
            if seconds:
                return seconds
        return None

    def _explain_timeouts(self, outputs: list, hidden: bool) -> list:
        """Replace the empty timeout errors by one message; the student's frames stay,
        except in hidden-test cells, whose frames would show the hidden lines."""
        kept, explained = [], False
        for output in outputs:
            bare = output.get("output_type") == "error" and not output.get("evalue", "").strip()
            if not bare or output.get("ename") not in TIMED_OUT:
                kept.append(output)
                continue
            if explained:
                continue  # the interrupt and nbgrader's own timeout error: one message
            explained = True
            message = time_limit_message(self._time_limit())
            frames = [
                frame
                for frame in ([] if hidden else output.get("traceback", []))
                if not is_private_frame(frame)
                and not ANSI.sub("", frame).strip().startswith(TIMED_OUT)
                and "Traceback (most recent call last)" not in frame  # names the interrupt
            ]
            output["ename"], output["evalue"] = TIME_LIMIT, message
            output["traceback"] = [*frames, f"Time limit: {message}"]
            kept.append(output)
        return kept


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


class FeedbackPage(NbGraderPreprocessor):
    """Adds ``resources["bpe_feedback"]``: the ``titles`` of the test cells."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        titles = {}
        for cell in nb.cells:
            meta = nbgrader_meta(cell)
            if meta.get("grade") and meta.get("grade_id") and not meta.get("solution"):
                titles[meta["grade_id"]] = cell_title(meta["grade_id"])
        resources["bpe_feedback"] = {"titles": titles}
        return nb, resources


class CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates, kept in this process's memory: nbgrader makes a new
    exporter (and so a new Jinja environment) for every student, which would compile the
    page's templates again each time. A changed template file is compiled again (Jinja
    checks each file's checksum). Memory, not a folder: code read back from a file is run,
    and a folder is one more thing someone else could write."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


# One cache per kind of environment: Jinja compiles a filter call differently when the filter
# takes the template's context, so environments whose filters differ never share code.
_COMPILED: dict[tuple, CompiledTemplates] = {}


def compiled_templates(environment: Environment) -> CompiledTemplates:
    """The process's compiled templates for environments made like ``environment``."""
    kind = tuple(
        (name, getattr(function, "jinja_pass_arg", None))
        for table in (environment.filters, environment.tests)
        for name, function in sorted(table.items())
    )
    key = (environment.is_async, tuple(sorted(environment.extensions)), kind)
    return _COMPILED.setdefault(key, CompiledTemplates())


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
        # MarkupAsText's work (outputs).
        config.FeedbackExporter.sanitize_html = True
        super().__init__(config=config, **kwargs)

    @contextfilter
    def markdown2html(self, context: Any, source: str) -> str:
        """``HTMLExporter.markdown2html``, the formulas written as MathML."""
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)

    def _create_environment(self) -> Environment:
        environment = super()._create_environment()
        environment.bytecode_cache = compiled_templates(environment)
        return environment
