"""Accessibility: axe-core's WCAG 2.0/2.1 A and AA rules on every page of the site (light
and dark), on a feedback page with failures and on the widget in Voila; the widget driven
by the keyboard alone and read back from the accessibility tree; figures whose descriptions
state numbers recomputed here from the data, and whose lines differ by more than colour.

axe-core comes from ``axe-playwright-python`` (its wheel ships ``axe.min.js``, so nothing is
fetched); a test fails on any violation and on any colour-contrast result axe leaves
"incomplete" (text over an image or a gradient it could not measure). Focus visibility
(WCAG 2.4.7) is checked by hand: the focused element's computed outline or box-shadow.

But: a pass here does not mean a page is usable by everyone; axe judges markup, not
whether alt text says the right thing or the reading order makes sense.
"""

from __future__ import annotations

import re
import sys
import time

import pytest

from bpe_course.widget import DEFAULT_TEXT, MergeStepper
from tests import test_browser as tb
from tests import test_docs as td
from tests import test_feedback_browser as fb

# The browser, page and server fixtures of the widget's browser tests, shared.
browser, page, server = tb.browser, tb.page, tb.server

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
MERGES = 6


def axe_problems(page) -> list[str]:
    """Every A/AA violation on the page, and every colour-contrast check axe could not
    finish, one line per rule with the first elements it names."""
    axe_module = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="needs axe-playwright-python: make venv"
    )
    # axe lists every node only for the result types read here, and one for each passed
    # rule: the same findings in about a quarter less time on the site's pages.
    options = {
        "runOnly": {"type": "tag", "values": WCAG_TAGS},
        "resultTypes": ["violations", "incomplete"],
    }
    results = axe_module.Axe().run(page, options=options).response
    found = list(results["violations"])
    for rule in results["incomplete"]:
        if rule["id"] == "color-contrast":
            nodes = [node for node in rule["nodes"] if not symbol_measured(page, node)]
            if nodes:
                found.append({**rule, "nodes": nodes})
    return [
        f"{rule['id']} ({len(rule['nodes'])}): {rule['help']}: "
        + "; ".join(" ".join(node["target"]) for node in rule["nodes"][:4])
        for rule in found
    ]


def symbol_measured(page, node: dict) -> bool:
    """Whether an "incomplete" contrast result is text of symbols only (␣, →) that axe
    declines to measure, whose contrast this test measures instead (its colour against the
    nearest opaque background of it or an ancestor, with no background image on the way)
    and finds at least 4.5:1. Anything else stays a failure."""
    reasons = {check.get("data", {}).get("messageKey") for check in node["any"]}
    if reasons != {"nonBmp"}:
        return False
    ratio = page.locator(" ".join(node["target"])).first.evaluate(
        """e => {
        const s = getComputedStyle(e);
        const rgb = c => c.match(/[\\d.]+/g).map(Number);
        let [r, g, b, a] = [255, 255, 255, 1];
        for (let p = e; p; p = p.parentElement) {
            const ps = getComputedStyle(p);
            if (ps.backgroundImage !== "none") return 0;
            const c = rgb(ps.backgroundColor);
            if ((c[3] ?? 1) === 1) { [r, g, b] = c; break; }
            if (c[3] > 0) return 0;
        }
        const lum = ([r, g, b]) => {
            const f = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
            return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const [l1, l2] = [lum(rgb(s.color)), lum([r, g, b])].sort((x, y) => y - x);
        return (l1 + 0.05) / (l2 + 0.05);
    }"""
    )
    return ratio >= 4.5


# --- the site -------------------------------------------------------------------------------

# True once the page shows the theme of scheme and no colour is still fading into it.
SETTLED_IN = """scheme => document.documentElement.dataset.theme === scheme
    && document.getAnimations().every(a => a.playState !== "running")"""


@pytest.mark.browser
@pytest.mark.slow
def test_every_site_page_passes_axe(site, browser):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    problems = {}
    try:
        pages = td.pages_of(site)
        assert len(pages) > 10
        for html_page in pages:
            page.emulate_media(color_scheme="light")
            page.goto(html_page.as_uri())
            page.wait_for_load_state("networkidle")
            formulas = page.locator("mjx-container").count()
            assert page.locator("mjx-assistive-mml").count() == formulas, html_page.name
            # The theme follows the reader's setting as it changes, so one load serves both.
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                shown = f"{html_page.relative_to(site)} ({scheme})"
                try:
                    page.wait_for_function(SETTLED_IN, arg=scheme, timeout=10_000)
                except PlaywrightTimeout:
                    problems[shown] = ["the page did not take the reader's colour scheme"]
                    continue
                found = axe_problems(page)
                if found:
                    problems[shown] = found
        # A reader whose setting is dark gets the dark theme from the first paint, too: read
        # at "load" (goto's wait), as "networkidle" can outwait 30 s on a busy machine.
        page.goto(pages[0].as_uri())
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    finally:
        context.close()
    assert problems == {}


@pytest.mark.slow
def test_every_lesson_plot_has_its_description_as_alt(site):
    alts = []
    for lesson in sorted((site / "lessons").glob("*.html")):
        for tag in re.findall(r"<img [^>]*>", lesson.read_text()):
            alt = re.search(r'alt="([^"]*)"', tag)
            alts.append((lesson.name, alt.group(1) if alt else ""))
    assert alts, "no plot on any lesson page"
    bad = [(name, alt) for name, alt in alts if not alt.startswith(("Line chart", "Log-log"))]
    assert bad == []


# --- the similarity report -------------------------------------------------------------------


@pytest.mark.browser
def test_the_similarity_report_passes_axe_offline_and_opens_by_keyboard(page, tmp_path):
    from autograder import cli
    from course_fixtures import similarity_class

    root = tmp_path / "course"
    similarity_class.build_class(root, similarity_class.REPO / "notebooks")
    assert cli.main(["similarity", "--root", str(root), "--threshold", "3"]) == 0
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file:") else None)
    page.goto((root / "artifacts" / "grading" / "similarity.html").as_uri())
    # The first pair opens from the keyboard: Tab to its summary, Enter.
    summary = page.locator("details summary").first
    for _ in range(60):
        page.keyboard.press("Tab")
        if summary.evaluate("node => node === document.activeElement"):
            break
    page.keyboard.press("Enter")
    assert page.locator("details").first.evaluate("node => node.open")
    page.locator("details").evaluate_all("nodes => nodes.forEach(n => { n.open = true; })")
    problems = axe_problems(page)
    assert problems == [], "\n".join(problems)
    assert page.locator("mark").count() > 0
    assert outside == []


# --- a feedback page with failures ------------------------------------------------------------

feedback_page = fb.feedback_page  # real autograde and generate_feedback of a wrong answer


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.nbgrader
def test_a_feedback_page_with_failures_passes_axe_and_says_results_in_words(page, feedback_page):
    from playwright.sync_api import expect

    page.goto(feedback_page.as_uri())
    # Formulas stay readable by assistive technology: each is MathML, exposed as math (some
    # are inside a closed <details>, hidden until it opens).
    formulas = page.locator("math").count()
    assert formulas > 0
    expect(page.get_by_role("math", include_hidden=True)).to_have_count(formulas)
    assert page.locator("html").get_attribute("lang") == "en"
    problems = axe_problems(page)
    assert problems == [], "\n".join(problems)
    # One heading per test cell: its name and its result in words.
    headings = page.get_by_role("heading", level=3).all_inner_texts()
    tests = [h for h in headings if "tests" in h]
    expected = [
        f"{title} test_{title.split(':')[0]}_{group}: {result}"
        for title, group, result in zip(
            fb.TITLES,
            ["examples", "hidden_core", "hidden_random"] * 2,
            ["passed"] * 3 + ["failed"] * 3,
        )
    ]
    assert [" ".join(h.split()) for h in tests] == expected
    # Each failure says, as text, the input, what was expected and what came back.
    for message in page.locator(".output_error pre").all_inner_texts():
        assert "expected" in message and "got" in message, message[:300]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.nbgrader
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_feedback_page_with_failures_passes_axe_on_a_phone(page, feedback_page, scheme):
    """A narrow screen wraps each test cell's long heading onto several lines: the heading's
    colour must grow with it, not leave white words on the grey code below."""
    page.set_viewport_size({"width": 400, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.goto(feedback_page.as_uri())
    problems = axe_problems(page)
    assert problems == [], "\n".join(problems)
    heading = page.locator(".nbgrader_cell > .panel-heading", has=page.locator("h3")).first
    overflow = heading.evaluate("e => e.scrollHeight - e.clientHeight")
    assert overflow == 0, f"the heading's text runs {overflow} px out of its box"


# --- the widget in Voila --------------------------------------------------------------------


@pytest.fixture
def voila_widget(page, server):
    from playwright.sync_api import expect

    port = tb.free_port()
    command = [
        sys.executable, "-m", "voila", "--no-browser", f"--port={port}",
        "--Voila.ip=127.0.0.1", str(tb.VOILA_NOTEBOOK),
    ]  # fmt: skip
    process, log = server(command, tb.VOILA_NOTEBOOK.parent, "voila.log")
    tb.wait_until(lambda: tb.port_open(port), process, log, "Voila")
    page.goto(f"http://127.0.0.1:{port}/", timeout=60_000)
    widget = page.locator(".bpe-watch-it-learn")
    expect(widget.locator(".bpe-token").first).to_be_visible(timeout=60_000)
    return widget


@pytest.mark.browser
@pytest.mark.slow
def test_widget_passes_axe_fresh_and_after_six_merges(page, voila_widget):
    from playwright.sync_api import expect

    problems = axe_problems(page)
    assert problems == [], "fresh:\n" + "\n".join(problems)
    next_button = voila_widget.get_by_role("button", name="Next merge")
    for k in range(1, MERGES + 1):
        next_button.click()
        expect(voila_widget.locator(".bpe-merge-row")).to_have_count(k)
    problems = axe_problems(page)
    assert problems == [], f"after {MERGES} merges:\n" + "\n".join(problems)


SENTENCE = "the cat and the hat sat on the mat at the end"


def focus_is_visible(page) -> str:
    """A description of the focused element, empty when it has no visible focus mark."""
    return page.evaluate(
        """() => {
        const e = document.activeElement;
        if (!e || e === document.body) return "";
        const s = getComputedStyle(e);
        const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1;
        const shadow = s.boxShadow && s.boxShadow !== "none";
        return (outline || shadow) ? `${e.tagName} ${e.className}` : "";
    }"""
    )


def tab_to(page, name: str, limit: int = 20) -> list[str]:
    """Press Tab until the focused element's accessible label contains ``name``; every
    element passed on the way must show a visible focus. Returns what was passed."""
    passed = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        shown = focus_is_visible(page)
        where = page.evaluate(
            "() => { const e = document.activeElement; const s = getComputedStyle(e);"
            " return `${e.outerHTML.slice(0, 120)} outline=${s.outline} shadow=${s.boxShadow}`; }"
        )
        assert shown, f"no visible focus after Tab {len(passed) + 1} (passed {passed}): {where}"
        label = page.evaluate(
            """() => { const e = document.activeElement;
            return (e.getAttribute("aria-label") || e.innerText || e.labels?.[0]?.innerText
                    || e.tagName).trim(); }"""
        )
        passed.append(label)
        if name in label:
            return passed
    pytest.fail(f"Tab never reached {name!r}: {passed}")


def tokens_from_aria(widget) -> list[str]:
    """The segmentation as the accessibility tree has it: one list item per token, named
    as it is spoken ("space, cat"), each "space" read back as " "."""
    tree = widget.get_by_role("list").aria_snapshot()
    names = re.findall(r'^\s*- listitem "(.*)"', tree, flags=re.M)
    assert names, tree[:500]
    tokens = []
    for name in names:
        name = name.replace('\\"', '"').removesuffix(" (new)")
        tokens.append("".join(" " if p == "space" else p for p in name.split(", ")))
    return tokens


@pytest.mark.browser
@pytest.mark.slow
def test_widget_by_keyboard_alone_read_from_the_accessibility_tree(page, voila_widget):
    from playwright.sync_api import expect

    page.mouse.move(0, 0)
    page.locator("body").focus()
    tab_to(page, "Your text")
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(SENTENCE)
    passed = tab_to(page, "Next merge")
    assert len(passed) == 1, f"Next merge is not right after the text box: {passed}"
    # The box sends its text when it loses focus and the kernel retrains: on a busy machine a
    # key pressed before then steps the old text, so wait for the new text's own first line.
    expect(voila_widget.get_by_role("status")).to_contain_text(MergeStepper(SENTENCE).status())
    for k in range(1, MERGES + 1):
        page.keyboard.press("Enter")
        expect(voila_widget.get_by_role("status")).to_contain_text(f"After {k} of")
        assert focus_is_visible(page), f"focus lost after merge {k}"
    tab_to(page, "Back")
    page.keyboard.press("Space")
    expect(voila_widget.get_by_role("status")).to_contain_text(f"After {MERGES - 1} of")
    stepper = MergeStepper(SENTENCE)
    stepper.goto(MERGES - 1)
    # The status line and the token list are redrawn one after the other: read the list
    # until it is drawn (a busy machine once caught it empty), for a few seconds at most.
    deadline = time.monotonic() + 15
    while True:
        try:
            tokens = tokens_from_aria(voila_widget)
        except AssertionError:  # no list items yet
            tokens = []
        if tokens == stepper.segmentation() or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert tokens == stepper.segmentation()
    # The merge table and the candidates come next in the tab order, as text.
    passed = tab_to(page, "Merge table")
    table = page.evaluate("() => document.activeElement.innerText")
    for merge in stepper.merges:
        assert f"{merge.rank}\t" in table and f"\t{merge.count}\t" in table
    tab_to(page, "Candidates")
    winner = stepper.candidates()[0]
    assert "next" in page.evaluate("() => document.activeElement.innerText")
    assert str(winner.count) in page.evaluate("() => document.activeElement.innerText")


def focused_control(page) -> str:
    """The focused element as "TAG label", or "" when focus fell to the page (or sits on a
    disabled control, which no key can use)."""
    return page.evaluate(
        """() => { const e = document.activeElement;
        if (!e || e === document.body || e.disabled) return "";
        const label = e.getAttribute("aria-label") || e.labels?.[0]?.innerText || e.innerText;
        return `${e.tagName} ${(label || "").trim()}`; }"""
    )


SHORT = "the cat"  # five merges: quick to walk to the end


@pytest.mark.browser
@pytest.mark.slow
def test_widget_keeps_focus_on_a_control_at_the_last_merge_and_after_emptied_boxes(
    page, voila_widget
):
    from playwright.sync_api import expect

    status = voila_widget.get_by_role("status")
    next_button = voila_widget.get_by_role("button", name="Next merge")
    back_button = voila_widget.get_by_role("button", name="Back")
    text_box = voila_widget.get_by_role("textbox", name="Your text")
    page.mouse.move(0, 0)
    page.locator("body").focus()
    tab_to(page, "Your text")
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(SHORT)
    tab_to(page, "Next merge")
    short = MergeStepper(SHORT)
    expect(status).to_contain_text(short.status())
    for k in range(1, short.total_merges + 1):
        page.keyboard.press("Enter")
        expect(status).to_contain_text(f"After {k} of")
    # Next merge is disabled now: the focus goes to Back, never to the page.
    expect(status).to_contain_text("nothing is left to merge")
    expect(back_button).to_be_focused()
    page.keyboard.press("Enter")
    expect(status).to_contain_text(f"After {short.total_merges - 1} of")
    page.keyboard.press("Shift+Tab")
    expect(next_button).to_be_focused()
    # An emptied number box is put back as it was and keeps the focus.
    tab_to(page, "Go to merge")
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Backspace")
    page.keyboard.press("Enter")
    number_box = voila_widget.get_by_role("spinbutton", name="Go to merge")
    expect(number_box).to_have_value(str(short.total_merges - 1))
    assert "Go to merge" in focused_control(page)
    # An emptied text box disables every button: the focus comes back to the box, and the
    # line says what to do in keyboard words.
    text_box.focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Backspace")
    page.keyboard.press("Tab")
    expect(status).to_contain_text("The text is empty")
    expect(status).to_contain_text("press Tab")
    expect(text_box).to_be_focused()
    # Typing a text again: the next Tab lands on Next merge, which works again.
    page.keyboard.type(SHORT)
    page.keyboard.press("Tab")
    expect(status).to_contain_text(short.status())
    expect(next_button).to_be_focused()
    page.keyboard.press("Enter")
    expect(status).to_contain_text("After 1 of")


@pytest.mark.browser
@pytest.mark.slow
def test_widget_shows_the_newest_merge_in_view(page, voila_widget):
    from playwright.sync_api import expect

    total = MergeStepper(DEFAULT_TEXT).total_merges
    assert total > 30  # more rows than the merge table's pane shows at once
    text_box = voila_widget.get_by_role("textbox", name="Your text")
    text_box.fill(DEFAULT_TEXT)
    text_box.press("Tab")
    status = voila_widget.get_by_role("status")
    expect(status).to_contain_text(MergeStepper(DEFAULT_TEXT).status())
    number_box = voila_widget.get_by_role("spinbutton", name="Go to merge")
    number_box.fill(str(total))
    number_box.press("Enter")
    expect(status).to_contain_text(f"After {total} of")
    rank = page.locator("td:first-child", has_text=re.compile(rf"^{total - 1}$"))
    newest = voila_widget.locator(".bpe-merge-row").filter(has=rank)
    expect(newest).to_have_count(1)
    expect(newest).to_be_in_viewport()


# --- figures: descriptions from the data, lines told apart without colour -------------------


@pytest.fixture(scope="module")
def course_curve():
    from bpe_course.compression import compression_curve
    from bpe_course.texts import COURSE_TEXT, split_train_heldout

    train, heldout = split_train_heldout(COURSE_TEXT)
    return compression_curve(train, heldout, progress=False)


def kept_figures(monkeypatch) -> list:
    """Figures closed while the list is held, kept to look at."""
    import matplotlib.pyplot as plt

    figures: list = []
    monkeypatch.setattr(plt, "close", figures.append)
    return figures


def assert_lines_differ_without_colour(fig) -> None:
    for ax in fig.axes:
        looks = [(line.get_linestyle(), line.get_marker()) for line in ax.get_lines()]
        looks = [look for look in looks if look != ("None", "None")]
        assert len(set(looks)) == len(looks), f"lines alike but for colour: {looks}"


def test_the_overfitting_curve_says_its_numbers(course_curve):
    import matplotlib.pyplot as plt

    from bpe_course.plots import describe_compression_curve, plot_compression_curve

    said = describe_compression_curve(course_curve)
    train, heldout = course_curve.train_rho, course_curve.heldout_rho
    # The merge where they part, recomputed: training stays 5 % above held-out from there.
    start = train[0] / heldout[0]
    apart = [t / h / start - 1 > 0.05 for t, h in zip(train, heldout)]
    split = next(k for k in range(len(apart)) if all(apart[k:]))
    for number in (train[0], train[-1], heldout[0], heldout[-1], train[split], heldout[split]):
        assert f"{number:.2f}" in said, (number, said)
    assert f"part at {split:,} merges" in said and f"0 to {len(train) - 1:,} merges" in said
    fig = plot_compression_curve(course_curve)
    assert_lines_differ_without_colour(fig)
    assert "solid" in said and "dashed" in said
    plt.close(fig)


def test_the_cost_figure_says_its_numbers():
    import matplotlib.pyplot as plt

    from bpe_course.cost import checkpoints, fit_slope, incremental_work, naive_work, plot_cost
    from bpe_course.pretokenize import chunk_counts
    from bpe_course.texts import COURSE_TEXT

    counts = chunk_counts(COURSE_TEXT)
    naive, _ = naive_work(counts, 60, progress=False)
    fast, _ = incremental_work(counts, 60, progress=False)
    points = checkpoints(len(naive), first=10)
    naive_at, fast_at = [naive[m - 1] for m in points], [fast[m - 1] for m in points]
    fig, said = plot_cost(points, naive_at, fast_at)
    for number in (naive_at[0], naive_at[-1], fast_at[0], fast_at[-1]):
        assert f"{number:,}" in said
    for slope in (fit_slope(points, naive_at), fit_slope(points, fast_at)):
        assert f"{slope:.2f}" in said
    assert_lines_differ_without_colour(fig)
    plt.close(fig)


def test_the_class_figures_say_their_numbers(tmp_path, monkeypatch):
    from autograder.reports import mistakes, summary

    maxima = {"pair_counts": 3.0, "merge_pair": 3.0, "train_bpe": 5.0}
    maxima |= {"encode_bpe": 5.0, "merge_and_update": 5.0}
    rows = [
        summary.StudentRow(s, scores=dict.fromkeys(maxima, score), maxima=maxima)
        for s, score in (("a", 2.0), ("b", 3.0), ("c", 3.0))
    ]
    rows[0].scores["train_bpe"] = None
    said = summary.describe_distribution(rows)
    assert "pair_counts (out of 3): 0 scored 0, 0 scored 1, 1 scored 2, 2 scored 3." in said
    assert "train_bpe (out of 5): 0 scored 0, 0 scored 1, 0 scored 2, 2 scored 3" in said
    assert "1 ungraded" in said

    bars = [
        mistakes.Bar("merge_pair", mistakes.NAMED, "overlapping merges", ["a", "b"]),
        mistakes.Bar("merge_pair", mistakes.UNEXPLAINED, "", ["c"]),
    ]
    figures = kept_figures(monkeypatch)
    mistakes.plot(bars, tmp_path / "mistakes.png")
    said = mistakes.describe(bars)
    assert "overlapping merges 2 students" in said and "unexplained 1 student." in said
    named, other = figures[0].axes[0].patches[:2]
    assert named.get_hatch() != other.get_hatch(), "bar kinds told apart by colour alone"
