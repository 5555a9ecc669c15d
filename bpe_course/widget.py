"""The "Watch it learn" widget: step a BPE trainer through your own text, one merge at a time.

Three panes change together on every step: the text cut into its current tokens (each
token boxed, spaces drawn as ␣), the merge table learned so far, and the pairs competing for
the next merge, with ties marked and the winner chosen by the lesson's rule (highest count,
then the smallest pair). Buttons step forward and back, a number box jumps to any merge.
Every control has a label and a visible focus; the tokens are a list a screen reader reads
one by one, each ␣ announced as "space", and the winner and ties are said in words. The
merge table lists the newest merge first, so it is in view however long the table grows.
When a step disables the button that has the focus (Next merge at the last merge, Back at
none, every button when the text is empty), the focus moves to a control that still works,
rather than falling to the page where the next Tab would start over.

The file has two layers. :class:`MergeStepper` holds the state and knows nothing of widgets,
so tests drive it directly; the ``render_*`` functions turn it into HTML; and
:class:`WatchItLearn` is the thin ipywidgets shell that wires buttons to the stepper. It does
not train anything itself: the loop is :class:`bpe_course.engine.Trainer`.

>>> stepper = MergeStepper("the cat and the hat")
>>> stepper.next()
Merge(rank=0, pair=('a', 't'), count=2)
>>> stepper.segmentation()[:6]
['t', 'h', 'e', ' ', 'c', 'at']
>>> stepper.back(); stepper.position
0
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

import ipywidgets as widgets

from bpe_course.display import show_pair, visible
from bpe_course.engine import Merge, Pair, Trainer
from bpe_course.pretokenize import pretokenize

# Chosen so the first merges are the ones the lesson describes: (a, t) with count 15, then
# (h, e), (t, he) and (␣, the); "the" occurs both with a space (" the") and without one
# ("other", "Neither"), and a tie at merge 5 leads to " cat" as one token after six merges.
DEFAULT_TEXT = (
    "The cat sat on the mat, and the other cat sat on the hat. "
    "Neither cat ate the fat rat. That cat sat at the gate."
)

MAX_CHARS = 500_000  # beyond this, stepping stays fast but building the first table does not
SHOWN_CHARS = 3_000  # the segmentation pane draws the start of a long text only
SHOWN_MERGES = 200  # the merge table pane draws the latest merges only
SHOWN_CANDIDATES = 8


class Candidate(NamedTuple):
    """A pair that could be merged next, its count, and how it stands against the others."""

    pair: Pair
    count: int  # type: ignore[assignment]  # hides tuple.count: the name the lessons use
    winner: bool  # the pair the next step will merge
    tied: bool  # it has the winner's count, so the tie-break rule decides between them


class MergeStepper:
    """A trainer on one text that can move to any number of merges, forward or back.

    The text is trained once, to the end, when the stepper is made: that run gives the
    number box its range and the whole merge list. Every step after that replays the next merge
    of the list (:meth:`Trainer.replay`) instead of searching for it again; going back
    rebuilds the trainer and replays the earlier merges, which costs about as much as the
    steps themselves (milliseconds on a few kilobytes). Bad input never raises:
    :attr:`problem` says what is wrong instead.
    """

    def __init__(self, text: object) -> None:
        self.text = text if isinstance(text, str) else ""
        self.problem = _problem_with(text)
        self._chunks = pretokenize(self.text) if self.problem is None else []
        self._counts = Counter(self._chunks)
        self.trainer = Trainer(self._counts)
        self._chunk_ids = {chunk: i for i, chunk in enumerate(self.trainer.chunks)}
        self.tokens_before = self.trainer.total_tokens
        self._all_merges = _learn_to_the_end(self._counts)
        self.total_merges = len(self._all_merges)
        if self.problem is None and self.total_merges == 0:
            self.problem = (
                "No pair to merge: every word of this text is a single character already. "
                "Type a text with longer words."
            )

    @property
    def position(self) -> int:
        """How many merges have been learned so far."""
        return len(self.trainer.merges)

    @property
    def merges(self) -> list[Merge]:
        return self.trainer.merges

    @property
    def at_end(self) -> bool:
        return self.position >= self.total_merges

    def next(self) -> Merge | None:
        """Learn one more merge; ``None`` when nothing is left to merge."""
        return None if self.at_end else self.trainer.replay(self._all_merges[self.position].pair)

    def back(self) -> None:
        """Forget the latest merge (nothing happens at 0 merges)."""
        self.goto(self.position - 1)

    def reset(self) -> None:
        self.goto(0)

    def goto(self, k: int) -> None:
        """Move to exactly ``k`` merges, clamped to ``0 … total_merges``."""
        k = max(0, min(int(k), self.total_merges))
        if k < self.position:
            self.trainer = Trainer(self._counts)
        while self.position < k:
            self.trainer.replay(self._all_merges[self.position].pair)

    def segmentation(self, max_chars: int | None = None) -> list[str]:
        """The tokens of the text in order (of its first ``max_chars`` characters, rounded
        up to a whole chunk); joined, they give the text back."""
        tokens: list[str] = []
        shown = 0
        for chunk in self._chunks:
            if max_chars is not None and shown >= max_chars:
                break
            shown += len(chunk)
            tokens.extend(self.trainer.symbols[self._chunk_ids[chunk]])
        return tokens

    def candidates(self, k: int = SHOWN_CANDIDATES) -> list[Candidate]:
        """The ``k`` best pairs for the next merge, best first; the first one wins."""
        if self.at_end:
            return []
        best = self.trainer.candidates(k)
        top = best[0][1]
        tie = len(best) > 1 and best[1][1] == top
        return [
            Candidate(pair, count, winner=i == 0, tied=tie and count == top)
            for i, (pair, count) in enumerate(best)
        ]

    def status(self) -> str:
        """One line saying where the stepper is, or what is wrong with the text."""
        if self.problem is not None:
            return self.problem
        line = (
            f"After {self.position} of {_merges(self.total_merges)}: "
            f"{self.trainer.total_tokens} tokens (there were {self.tokens_before})."
        )
        if self.at_end:
            line += " Every word is now a single token: nothing is left to merge."
        return line


def _merges(n: int) -> str:
    return "1 merge" if n == 1 else f"{n} merges"


def _problem_with(text: object) -> str | None:
    if not isinstance(text, str):
        return f"The text must be a str, but got {type(text).__name__}. Type some text."
    if not text.strip():
        return "The text is empty. Type a sentence or two into the box, then press Tab."
    if len(text) > MAX_CHARS:
        return (
            f"The text has {len(text):,} characters; the widget takes at most {MAX_CHARS:,}. "
            "Paste a shorter piece. For a whole file, load_text(path) reads it, and "
            "overfitting_curve(Path(path)) measures how a tokenizer trained on it overfits."
        )
    return None


def _learn_to_the_end(counts: dict[str, int]) -> list[Merge]:
    """Every merge training makes before each chunk is one token (the stepper's only run)."""
    trainer = Trainer(counts)
    while trainer.step() is not None:
        pass
    return trainer.merges


# --- HTML for the three panes ---------------------------------------------------------------

# Boxes and the winner's row set their own text colour, so they stay legible in a dark theme.
STYLE = """<style>
.bpe-pane { font-size: 14px; }
.bpe-pane h4 { margin: 0 0 6px 0; }
.bpe-seg { font-family: monospace; line-height: 1.4; }
.bpe-token { display: inline-block; border: 1px solid #8a8a8a; border-radius: 3px;
  padding: 0 2px; margin: 2px 1px; background: #f4f4f4; color: #111; white-space: pre; }
/* New tokens differ by more than colour: a double border and bold text. */
.bpe-token.bpe-new { background: #ffe08a; border: 3px double #6b5300; font-weight: bold; }
.bpe-pane table { border-collapse: collapse; font-family: monospace; }
.bpe-pane td, .bpe-pane th { padding: 1px 8px; text-align: left; border-bottom: 1px solid #ddd; }
.bpe-pane tr.bpe-winner { background: #d6f5d6; color: #111; font-weight: bold; }
.bpe-note { color: #444; font-size: 12px; }
.bpe-problem { color: #b00020; font-weight: bold; }
.bpe-seg[role=list] { display: block; }
.bpe-region { overflow: auto; max-height: 24em; }
.bpe-sr { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
.bpe-watch-it-learn :focus-visible, .bpe-watch-it-learn :focus,
.bpe-watch-it-learn .widget-inline-hbox input:focus, .bpe-watch-it-learn textarea:focus {
  outline: 3px solid #1a5fb4 !important; outline-offset: 2px;
  box-shadow: 0 0 0 2px #fff, 0 0 0 5px #1a5fb4 !important; }
</style>"""


def render_segmentation(stepper: MergeStepper, max_chars: int = SHOWN_CHARS) -> str:
    """Each token in a box, the tokens made by the latest merge highlighted."""
    newest = "".join(stepper.merges[-1].pair) if stepper.merges else None
    spans = []
    tokens = stepper.segmentation(max_chars)
    for token in tokens:
        css = "bpe-token bpe-new" if token == newest else "bpe-token"
        label = html.escape(spoken(visible(token)) + (" (new)" if token == newest else ""))
        spans.append(
            f'<span class="{css}" role="listitem" aria-label="{label}">'
            f"{html.escape(visible(token))}</span>"
        )
        if "\n" in token:
            spans.append("<br>")
    hidden = len(stepper.text) - sum(len(token) for token in tokens)
    note = f'<div class="bpe-note">… and {hidden:,} more characters.</div>' if hidden > 0 else ""
    if newest is not None:
        note += '<div class="bpe-note">In bold, double boxes: the latest merge\'s tokens.</div>'
    # <wbr> lets a long line of boxes wrap between tokens, never inside one.
    label = f"{len(tokens)} tokens, in order; the latest merge's tokens are marked new"
    return (
        f'<div class="bpe-seg bpe-region" role="list" tabindex="0" aria-label="{label}">'
        f"{'<wbr>'.join(spans)}</div>{note}"
    )


def render_merge_table(stepper: MergeStepper, max_rows: int = SHOWN_MERGES) -> str:
    """The merges learned so far, newest first: rank, pair, count when chosen, new token."""
    if not stepper.merges:
        return '<div class="bpe-note">No merges yet. Press Next merge.</div>'
    rows = [
        f'<tr class="bpe-merge-row"><td>{m.rank}</td><td>{_cell(show_pair(m.pair))}</td>'
        f"<td>{m.count}</td><td>{_cell(visible(''.join(m.pair)))}</td></tr>"
        for m in reversed(stepper.merges[-max_rows:])
    ]
    skipped = len(stepper.merges) - len(rows)
    note = f'<div class="bpe-note">(the first {skipped} are not shown)</div>' if skipped else ""
    head = (
        '<tr><th scope="col">rank</th><th scope="col">pair</th><th scope="col">count</th>'
        '<th scope="col">new token</th></tr>'
    )
    return (
        f'<div class="bpe-region" role="region" tabindex="0" aria-label="Merge table">'
        f'<table><caption class="bpe-sr">Merges learned so far, newest first</caption>'
        f"{head}{''.join(rows)}</table>{note}</div>"
    )


def render_candidates(stepper: MergeStepper) -> str:
    """The best pairs for the next merge, with ties marked and the winner explained."""
    candidates = stepper.candidates()
    if not candidates:
        return '<div class="bpe-note">Nothing left to merge.</div>'
    rows = []
    for c in candidates:
        mark = '<span aria-hidden="true">◀ </span>next' if c.winner else ""
        mark += " (tie)" if c.tied else ""
        css = "bpe-cand-row bpe-winner" if c.winner else "bpe-cand-row"
        rows.append(
            f'<tr class="{css}"><td>{_cell(show_pair(c.pair))}</td><td>{c.count}</td>'
            f"<td>{mark.strip()}</td></tr>"
        )
    head = '<tr><th scope="col">pair</th><th scope="col">count</th><th scope="col">chosen</th></tr>'
    return (
        f'<div class="bpe-region" role="region" tabindex="0" aria-label="Candidates">'
        f'<table><caption class="bpe-sr">Pairs that could merge next, best first</caption>'
        f"{head}{''.join(rows)}</table>{_tie_note(candidates)}</div>"
    )


def _tie_note(candidates: list[Candidate]) -> str:
    winner = candidates[0]
    if not winner.tied:
        return '<div class="bpe-note">The most frequent pair wins.</div>'
    tied = sum(c.tied for c in candidates)
    shown = f"{tied} pairs" if tied < len(candidates) else f"{tied} or more pairs"
    return (
        f'<div class="bpe-note">{shown} tie at count {winner.count}; the smallest pair '
        f"in Python's order ({html.escape(show_pair(winner.pair))}) wins, and ␣ sorts before "
        "every letter.</div>"
    )


def _cell(text: str) -> str:
    shown = html.escape(text)
    if "␣" in text:  # drawn as ␣, announced as "space"
        return (
            f'<span style="white-space: pre" role="img" '
            f'aria-label="{html.escape(spoken(text))}">{shown}</span>'
        )
    return f'<span style="white-space: pre">{shown}</span>'


def spoken(text: str) -> str:
    """``text`` as a screen reader should say it: each ␣ the word "space", set off by commas.

    >>> spoken("␣cat"), spoken("␣"), spoken("at")
    ('space, cat', 'space', 'at')
    """
    parts = [part for part in re.split("(␣)", text) if part]
    return ", ".join("space" if part == "␣" else part for part in parts)


def _pane(title: str, body: widgets.HTML, flex: str) -> widgets.VBox:
    heading = widgets.HTML(f"<h4>{title}</h4>")
    return widgets.VBox(
        [heading, body],
        layout=widgets.Layout(flex=flex, min_width="0", padding="0 8px", overflow="auto"),
    ).add_class("bpe-pane")


# --- the ipywidgets shell -------------------------------------------------------------------


class WatchItLearn(widgets.VBox):
    """Text box, buttons and number box above three panes; every change redraws all three."""

    def __init__(self, text: object = DEFAULT_TEXT) -> None:
        self.text_box = widgets.Textarea(
            value=text if isinstance(text, str) else "",
            description="Your text",
            placeholder="Type a sentence or two, then press Tab",
            continuous_update=False,  # retrain when the learner leaves the box, not per key
            layout=widgets.Layout(width="100%", height="5em"),
        )
        self.next_button = widgets.Button(description="Next merge", button_style="primary")
        self.back_button = widgets.Button(description="Back")
        self.reset_button = widgets.Button(description="Reset")
        # A number box, not a slider: ipywidgets' slider handle has no accessible name.
        self.slider = widgets.BoundedIntText(
            value=0,
            min=0,
            max=0,
            description="Go to merge",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="14em"),
        )
        self.status = widgets.HTML()
        self.status.add_class("bpe-status-line")
        self.segmentation_pane = widgets.HTML()
        self.merges_pane = widgets.HTML()
        self.candidates_pane = widgets.HTML()
        controls = widgets.HBox(
            [self.next_button, self.back_button, self.reset_button, self.slider],
            layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
        )
        panes = widgets.HBox(
            [
                _pane("Segmentation", self.segmentation_pane, "3 1 0"),
                _pane("Merge table", self.merges_pane, "2 1 0"),
                _pane("Next merge: candidates", self.candidates_pane, "2 1 0"),
            ],
            layout=widgets.Layout(width="100%", align_items="flex-start"),
        )
        super().__init__([widgets.HTML(STYLE), self.text_box, controls, self.status, panes])
        self.add_class("bpe-watch-it-learn")
        self._syncing = False
        self.stepper = MergeStepper(text)
        self.next_button.on_click(lambda _: self._act(self.stepper.next, self.next_button))
        self.back_button.on_click(lambda _: self._act(self.stepper.back, self.back_button))
        self.reset_button.on_click(lambda _: self._act(self.stepper.reset, self.reset_button))
        self.slider.observe(self._on_slider, names="value")
        self.text_box.observe(lambda _: self._restart(), names="value")
        self._restart()

    def _restart(self) -> None:
        """Zero merges on the text in the box (retraining only if the text changed)."""
        if self.text_box.value != self.stepper.text:
            self.stepper = MergeStepper(self.text_box.value)
        self._act(self.stepper.reset, self.text_box)

    def _act(self, action: Callable[[], object], pressed: widgets.DOMWidget) -> None:
        """Do ``action`` for the control ``pressed``, redraw, and keep the focus usable."""
        next_was_off = self.next_button.disabled
        action()
        self._redraw()
        self._keep_focus(pressed, next_was_off)

    def _keep_focus(self, pressed: widgets.DOMWidget, next_was_off: bool) -> None:
        """Move the focus off ``pressed`` if it is now disabled (a disabled control drops it
        to the page), or on to Next merge when the Tab that sent the text skipped it."""
        if pressed is self.text_box:
            if self.stepper.problem is not None:
                self.text_box.focus()  # the one control left to fix the text with
            elif next_was_off and not self.next_button.disabled:
                self.next_button.focus()
        elif getattr(pressed, "disabled", False):
            working = [self.next_button, self.back_button, self.reset_button, self.slider]
            usable = (control for control in working if not control.disabled)
            next(usable, self.text_box).focus()

    def _on_slider(self, change: dict) -> None:
        if not self._syncing:
            self._act(lambda: self.stepper.goto(change["new"]), self.slider)

    def _redraw(self) -> None:
        stepper, broken = self.stepper, self.stepper.problem is not None
        self._syncing = True
        try:
            self.slider.max = stepper.total_merges
            self.slider.value = stepper.position
        finally:
            self._syncing = False
        self.slider.disabled = broken
        self.next_button.disabled = broken or stepper.at_end
        self.back_button.disabled = broken or stepper.position == 0
        self.reset_button.disabled = broken
        css = "bpe-problem" if broken else "bpe-status"
        self.status.value = (
            f'<div class="{css}" role="status">{html.escape(stepper.status())}</div>'
        )
        self.segmentation_pane.value = "" if broken else render_segmentation(stepper)
        self.merges_pane.value = "" if broken else render_merge_table(stepper)
        self.candidates_pane.value = "" if broken else render_candidates(stepper)


def watch_it_learn(text: str = DEFAULT_TEXT) -> WatchItLearn:
    """The "Watch it learn" widget on ``text``; make it the last line of a cell to show it.

    Edit the text in the box and press Tab (or click outside it) to start again on it.
    """
    return WatchItLearn(text)


__all__ = [
    "DEFAULT_TEXT",
    "Candidate",
    "MergeStepper",
    "WatchItLearn",
    "render_candidates",
    "render_merge_table",
    "render_segmentation",
    "spoken",
    "watch_it_learn",
]
