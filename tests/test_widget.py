"""The "Watch it learn" widget without a browser: its default text, its steps and its panes.

Every expectation about merges comes from an independent run of the engine's trainer (or
from the Encoder replaying the merges), never from the widget itself.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections import Counter

import nbformat
import pytest

from bpe_course.display import show_pair, visible
from bpe_course.engine import Encoder, Trainer, learn_merges
from bpe_course.pretokenize import chunk_counts, pretokenize
from bpe_course.texts import COURSE_TEXT
from bpe_course.widget import (
    DEFAULT_TEXT,
    MAX_CHARS,
    SHOWN_CHARS,
    SHOWN_MERGES,
    STYLE,
    MergeStepper,
    render_merge_table,
    watch_it_learn,
)

TOKEN_SPAN = re.compile(r'<span class="bpe-token[^"]*"[^>]*>(.*?)</span>')
TAG = re.compile(r"<[^>]+>")
MERGE_ROW = re.compile(r'<tr class="bpe-merge-row"><td>(\d+)</td>')
CANDIDATE_ROW = re.compile(
    r'<tr class="bpe-cand-row[^"]*"><td><span[^>]*>(.*?)</span></td><td>(\d+)</td>'
    r"<td>(.*?)</td></tr>"
)
NOTE = re.compile(r'<div class="bpe-note">(.*?)</div>')


def shown_tokens(widget) -> list[str]:
    """The token boxes of the segmentation pane, as the page draws them."""
    return [html.unescape(t) for t in TOKEN_SPAN.findall(widget.segmentation_pane.value)]


def shown_candidates(widget) -> list[tuple[str, int, str]]:
    """The rows of the candidates pane as the page draws them: pair, count and mark."""
    rows = CANDIDATE_ROW.findall(widget.candidates_pane.value)
    return [(html.unescape(pair), int(count), TAG.sub("", mark)) for pair, count, mark in rows]


def trainer_after(text: str, k: int) -> Trainer:
    trainer = Trainer(chunk_counts(text))
    for _ in range(k):
        trainer.step()
    return trainer


# --- the default text does what the lesson says ---------------------------------------------


def test_default_text_first_merges_are_the_lessons():
    trainer = trainer_after(DEFAULT_TEXT, 0)
    first = trainer.step()
    assert (first.pair, first.count) == (("a", "t"), 15)
    following = [trainer.step().pair for _ in range(3)]
    assert following == [("h", "e"), ("t", "he"), (" ", "the")]


def test_default_text_has_the_with_and_without_a_space():
    tokens = MergeStepper(DEFAULT_TEXT)
    tokens.goto(4)
    segmentation = tokens.segmentation()
    assert "the" in segmentation and " the" in segmentation


def test_default_text_makes_space_cat_one_token_after_six_merges():
    stepper = MergeStepper(DEFAULT_TEXT)
    stepper.goto(5)
    assert " cat" not in stepper.segmentation()
    stepper.next()
    tokens = Encoder([m.pair for m in stepper.merges]).encode(DEFAULT_TEXT)
    assert stepper.segmentation() == tokens
    assert tokens.count(" cat") == pretokenize(DEFAULT_TEXT).count(" cat") >= 2


# --- the stepper moves exactly like the trainer ---------------------------------------------


@pytest.mark.parametrize("text", [DEFAULT_TEXT, COURSE_TEXT])
def test_next_back_and_goto_match_the_trainer(text):
    stepper = MergeStepper(text)
    full = learn_merges(chunk_counts(text))
    assert stepper.total_merges == len(full)
    for k in range(1, 9):
        merge = stepper.next()
        assert merge.pair == full[k - 1] and stepper.position == k
    for k in (7, 3, 0, 25, 2, len(full), 0):
        stepper.goto(k)
        reference = trainer_after(text, k)
        assert [m.pair for m in stepper.merges] == full[:k]
        assert stepper.merges == reference.merges
        assert stepper.segmentation() == Encoder(full[:k]).encode(text)
        assert [(c.pair, c.count) for c in stepper.candidates()] == reference.candidates(8)
    stepper.goto(6)
    stepper.back()
    assert stepper.merges == trainer_after(text, 5).merges


def test_the_stepper_trains_once_and_replays_after(monkeypatch):
    searches = []
    real_step = Trainer.step

    def counted_step(self):
        searches.append(1)
        return real_step(self)

    monkeypatch.setattr(Trainer, "step", counted_step)
    stepper = MergeStepper(COURSE_TEXT)
    one_run = stepper.total_merges + 1  # the last search finds nothing left
    assert len(searches) == one_run
    stepper.goto(stepper.total_merges)
    stepper.goto(3)
    stepper.next()
    stepper.back()
    assert len(searches) == one_run, "moving the stepper searched for merges again"
    assert [m.pair for m in stepper.merges] == learn_merges(chunk_counts(COURSE_TEXT), 3)


def test_back_at_zero_and_next_at_the_end_do_nothing():
    stepper = MergeStepper("the cat")
    stepper.back()
    assert stepper.position == 0
    stepper.goto(10_000)
    assert stepper.position == stepper.total_merges and stepper.at_end
    assert stepper.next() is None and stepper.candidates() == []
    assert all(len(symbols) == 1 for symbols in stepper.trainer.symbols)
    assert "nothing is left to merge" in stepper.status()


def test_candidates_mark_the_tie_and_the_winner_is_the_next_merge():
    stepper = MergeStepper(DEFAULT_TEXT)
    stepper.goto(4)  # (␣, c) and (c, at) both have count 4 here
    candidates = stepper.candidates()
    top = [(c.pair, c.count, c.winner, c.tied) for c in candidates[:3]]
    assert top[0] == ((" ", "c"), 4, True, True)
    assert top[1] == (("c", "at"), 4, False, True)
    assert not top[2][3]  # a lower count is not part of the tie
    assert stepper.next().pair == (" ", "c")


@pytest.mark.parametrize(
    ("text", "merges", "tied"),
    [
        # (a, t) at 15 is far ahead of (h, e) at 8
        pytest.param(DEFAULT_TEXT, 0, 1, id="default-0-merges"),
        # (␣, c) and (c, at), both 4
        pytest.param(DEFAULT_TEXT, 4, 2, id="default-4-merges"),
        # (␣c, at) at 4, then pairs at 3
        pytest.param(DEFAULT_TEXT, 5, 1, id="default-5-merges"),
        # (␣, o), (␣, s) and (s, at), all 3
        pytest.param(DEFAULT_TEXT, 6, 3, id="default-6-merges"),
        # (a, b) twice, (b, a) once
        pytest.param("abab", 0, 1, id="abab"),
        # (␣, c), (a, b) and (c, d), once each
        pytest.param("ab cd", 0, 3, id="ab-cd"),
    ],
)
def test_the_candidates_pane_marks_a_tie_exactly_when_there_is_one(text, merges, tied):
    # The pairs are counted here from the reference trainer's words, not by the widget.
    reference = trainer_after(text, merges)
    counts: Counter = Counter()
    for symbols, weight in zip(reference.symbols, reference.counts):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += weight
    best = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:8]
    top = best[0][1]
    assert sum(count == top for count in counts.values()) == tied

    widget = watch_it_learn(text)
    widget.slider.value = merges
    pane = widget.candidates_pane.value
    marks = ["◀ next (tie)" if tied > 1 else "◀ next"]
    marks += ["(tie)" if tied > 1 and count == top else "" for _, count in best[1:]]
    assert shown_candidates(widget) == [
        (show_pair(pair), count, mark) for (pair, count), mark in zip(best, marks)
    ]
    (note,) = [html.unescape(n) for n in NOTE.findall(pane)]
    if tied > 1:
        assert pane.count("(tie)") == tied
        winner = show_pair(best[0][0])
        assert f"tie at count {top}; the smallest pair in Python's order ({winner}) wins" in note
    else:
        assert "(tie)" not in pane
        assert note == "The most frequent pair wins."


def test_segmentation_joins_back_to_the_text():
    text = "Two lines\nof  text, with 42 numbers!\n"
    stepper = MergeStepper(text)
    for k in (0, 3, stepper.total_merges):
        stepper.goto(k)
        assert "".join(stepper.segmentation()) == text


# --- the ipywidgets layer -------------------------------------------------------------------


def test_buttons_and_slider_redraw_the_panes_like_the_trainer():
    widget = watch_it_learn()
    assert widget.text_box.value == DEFAULT_TEXT
    assert widget.back_button.disabled and not widget.next_button.disabled
    assert shown_tokens(widget) == [visible(c) for c in DEFAULT_TEXT]
    for _ in range(3):
        widget.next_button.click()
    reference = trainer_after(DEFAULT_TEXT, 3)
    expected = Encoder([m.pair for m in reference.merges]).encode(DEFAULT_TEXT)
    assert widget.slider.value == 3
    assert shown_tokens(widget) == [visible(t) for t in expected]
    assert MERGE_ROW.findall(widget.merges_pane.value) == ["2", "1", "0"]  # newest first
    assert "<td>15</td>" in widget.merges_pane.value
    widget.back_button.click()
    assert widget.slider.value == 2 and len(widget.stepper.merges) == 2
    widget.slider.value = 6
    assert widget.stepper.merges == trainer_after(DEFAULT_TEXT, 6).merges
    assert visible(" cat") in shown_tokens(widget)
    # Here (␣, o), (␣, s) and (s, at) tie at count 3: three rows say so, the winner first.
    marks = [mark for _, _, mark in shown_candidates(widget)]
    assert marks[:4] == ["◀ next (tie)", "(tie)", "(tie)", ""]
    widget.back_button.click()  # five merges: (␣c, at) leads alone with 4
    assert [mark for _, _, mark in shown_candidates(widget)][:2] == ["◀ next", ""]
    assert "(tie)" not in widget.candidates_pane.value
    widget.reset_button.click()
    assert widget.slider.value == 0 and widget.stepper.merges == []


NEW_TOKEN_SPAN = re.compile(r'<span class="bpe-token bpe-new"[^>]*>(.*?)</span>')
NEW_TOKEN_RULE = re.compile(r"\.bpe-token\.bpe-new \{([^}]*)\}")


def test_the_latest_merges_tokens_differ_by_more_than_colour():
    widget = watch_it_learn()
    assert NOTE.findall(widget.segmentation_pane.value) == []  # no merge, nothing marked
    widget.next_button.click()  # (a, t), made 15 times in the default text
    newest = "".join(widget.stepper.merges[-1].pair)
    assert NEW_TOKEN_SPAN.findall(widget.segmentation_pane.value) == [newest] * 15
    rule = NEW_TOKEN_RULE.search(STYLE).group(1)
    assert "font-weight: bold" in rule and "double" in rule, rule  # not only its colours
    notes = [html.unescape(n) for n in NOTE.findall(widget.segmentation_pane.value)]
    assert notes == ["In bold, double boxes: the latest merge's tokens."]


def test_the_last_merge_disables_next_and_says_so():
    widget = watch_it_learn("the cat ate the hat")
    widget.slider.value = widget.slider.max
    assert widget.next_button.disabled and not widget.back_button.disabled
    assert "nothing is left to merge" in widget.status.value
    widget.next_button.click()  # a stray click from Python must not raise
    assert widget.stepper.at_end


def focus_calls(widget, monkeypatch) -> list[str]:
    """The names of the controls the widget asks the browser to focus, in order."""
    calls: list[str] = []
    for control in (widget.text_box, widget.next_button, widget.back_button, widget.slider):
        name = getattr(control, "description", "")
        monkeypatch.setattr(control, "focus", lambda name=name: calls.append(name))
    return calls


def test_a_control_disabled_under_the_focus_hands_it_to_one_that_works(monkeypatch):
    widget = watch_it_learn("the cat")
    calls = focus_calls(widget, monkeypatch)
    for _ in range(widget.stepper.total_merges - 1):
        widget.next_button.click()
    assert calls == []  # Next merge still works: the focus stays on it
    widget.next_button.click()  # the last merge disables Next merge
    assert calls == ["Back"]
    widget.slider.value = 1
    widget.back_button.click()  # none left to take back: Back is disabled
    assert calls == ["Back", "Next merge"]
    widget.text_box.value = ""  # every button off: back to the box, whose line says why
    assert calls[-1] == "Your text"
    assert "press Tab" in widget.status.value and "click" not in widget.status.value
    assert "press Tab" in widget.text_box.placeholder
    widget.text_box.value = "the hat"  # the Tab that sent it skipped Next merge, then disabled
    assert calls[-1] == "Next merge" and not widget.next_button.disabled
    widget.text_box.value = "the bat"  # Next merge was usable all along: focus is left alone
    assert calls[-1] == "Next merge" and len(calls) == 4


def test_the_merge_table_lists_the_newest_merge_first():
    stepper = MergeStepper(COURSE_TEXT)
    stepper.goto(SHOWN_MERGES + 5)
    ranks = [int(rank) for rank in MERGE_ROW.findall(render_merge_table(stepper))]
    assert ranks == list(range(SHOWN_MERGES + 4, 4, -1))
    (note,) = NOTE.findall(render_merge_table(stepper))
    assert note == "(the first 5 are not shown)"


def test_typing_a_new_text_restarts_on_it():
    widget = watch_it_learn()
    widget.next_button.click()
    widget.text_box.value = "banana bandana"
    assert widget.stepper.position == 0 and widget.stepper.text == "banana bandana"
    widget.next_button.click()
    assert widget.stepper.merges[0].pair == learn_merges(chunk_counts("banana bandana"), 1)[0]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("a", "No pair to merge"),
        ("a\n", "No pair to merge"),
        (None, "must be a str"),
        ("x" * (MAX_CHARS + 1), "at most"),
    ],
)
def test_bad_input_shows_a_line_and_disables_the_buttons(text, says):
    widget = watch_it_learn(text)
    assert says in widget.status.value and "bpe-problem" in widget.status.value
    for control in (widget.next_button, widget.back_button, widget.reset_button, widget.slider):
        assert control.disabled
    widget.next_button.click()
    widget.back_button.click()
    assert widget.stepper.position == 0


def test_a_long_text_draws_only_its_start():
    text = COURSE_TEXT * 3
    widget = watch_it_learn(text)
    start = ""  # whole chunks, until SHOWN_CHARS characters are reached
    for chunk in pretokenize(text):
        if len(start) >= SHOWN_CHARS:
            break
        start += chunk
    assert len(start) < len(text)
    assert shown_tokens(widget) == [visible(char) for char in start]  # no merge yet
    notes = [html.unescape(n) for n in NOTE.findall(widget.segmentation_pane.value)]
    assert notes == [f"… and {len(text) - len(start):,} more characters."]


def test_the_widget_steps_the_same_under_any_hash_seed():
    program = (
        "from bpe_course.widget import MergeStepper, DEFAULT_TEXT\n"
        "from bpe_course.texts import COURSE_TEXT\n"
        "for text in (DEFAULT_TEXT, COURSE_TEXT):\n"
        "    s = MergeStepper(text)\n"
        "    while not s.at_end:\n"
        "        print(s.candidates(), s.next())\n"
    )
    runs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True
        )
        runs.append(done.stdout)
    assert runs[0] == runs[1] and runs[0].count("Merge(") > 400


# --- the widget on the website: a still of a few merges ---------------------------------------

RAW_MODEL_NAME = re.compile(r"\[\w*Model\]")


def saved_notebook(widget) -> nbformat.NotebookNode:
    """A notebook whose one cell shows ``widget``, its state saved as JupyterLab saves it."""
    import ipywidgets

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(
        "from bpe_course.widget import watch_it_learn\nwatch_it_learn()"
    )
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    cell.outputs = [
        nbformat.v4.new_output("display_data", {"application/vnd.jupyter.widget-view+json": view})
    ]
    nb.cells = [cell]
    state = ipywidgets.Widget.get_manager_state()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    return nb


def test_the_lesson_page_draws_the_widget_after_a_few_merges_and_says_how_to_play():
    from tests.test_docs import load

    lesson_pages = load("lesson_pages")
    nb = lesson_pages.page_notebook(saved_notebook(watch_it_learn()))
    drawing = nb.cells[0].outputs[0]["data"]["text/html"]
    assert not RAW_MODEL_NAME.search(drawing), RAW_MODEL_NAME.search(drawing)
    merges = lesson_pages.STILL_MERGES
    assert 2 <= merges <= 10
    expected = MergeStepper(DEFAULT_TEXT)
    expected.goto(merges)
    assert MERGE_ROW.findall(drawing) == [str(rank) for rank in range(merges - 1, -1, -1)]
    tokens = [html.unescape(t) for t in TOKEN_SPAN.findall(drawing)]
    assert tokens == [visible(t) for t in expected.segmentation()]
    number_box = re.search(r'<input type="number"[^>]*>', drawing)
    assert number_box and f'value="{merges}"' in number_box.group(0)
    assert "Go to merge" in drawing
    note = " ".join(nb.cells[1].source.split())
    assert "move only in Jupyter" in note and f"after {merges} merges" in note


@pytest.mark.slow
def test_the_site_shows_no_raw_widget_model_name(site):
    for page in sorted(site.rglob("*.html")):
        found = RAW_MODEL_NAME.search(page.read_text())
        assert found is None, f"{page.relative_to(site)} shows {found.group(0)}"
    lesson_1 = (site / "lessons" / "01_bpe_by_hand.html").read_text()
    assert 'class="bpe-merge-row"' in lesson_1 and '<input type="number"' in lesson_1
