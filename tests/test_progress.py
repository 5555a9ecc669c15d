"""Progress bars: none for work that ends at once, and a true rate on one that showed.

A loop of the course that finishes in a blink draws no bar at all (no "531995.90merge/s"
for a few hundred merges done in a millisecond); a bar that did show, whose total was only
an upper bound, ends full at the count reached, in Jupyter's widget too, and says the rate
of the whole run rather than of the instant it was closed.
"""

from __future__ import annotations

import io
from collections import Counter

import pytest
from tqdm import tqdm as text_tqdm
from tqdm.notebook import tqdm

from bpe_course.compression import compression_curve
from bpe_course.cost import incremental_work, naive_work
from bpe_course.large import train_counts
from bpe_course.pretokenize import chunk_counts
from bpe_course.progress import SHOW_AFTER_SECONDS, finish_at_count, progress_bar
from bpe_course.shards import read_pieces
from bpe_course.texts import COURSE_TEXT, split_train_heldout


class Clock:
    """A clock the test moves by hand, so elapsed time and rates are exact."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_widget_bar_ends_full_at_the_count_reached() -> None:
    bar = tqdm(total=839)  # the loose bound lesson 3's curve starts from
    bar.update(440)
    finish_at_count(bar)
    widget = bar.container.children[1]
    assert (widget.max, widget.value, bar.n, bar.total) == (440, 440, 440, 440)
    bar.close()


def test_a_bar_that_showed_ends_with_the_rate_of_the_whole_run() -> None:
    out = io.StringIO()
    bar = text_tqdm(total=839, unit="merge", file=out, mininterval=0, delay=SHOW_AFTER_SECONDS)
    clock = Clock()
    bar._time = clock  # tqdm reads the time through this attribute
    bar.start_t = bar.last_print_t = clock.now
    for _ in range(440):
        clock.now += 0.01  # 100 merges a second, for 4.4 s
        bar.update()
    assert out.getvalue(), "a bar running past the delay must show"
    finish_at_count(bar)
    stats = bar.format_dict
    assert (bar.n, bar.total, stats["elapsed"]) == (440, 440, pytest.approx(4.4))
    shown_rate = stats["rate"] or stats["n"] / stats["elapsed"]
    assert shown_rate == pytest.approx(100)
    assert "100.00merge/s" in out.getvalue().splitlines()[-1].split("\r")[-1]
    bar.close()


def test_a_bar_of_an_instant_loop_never_shows() -> None:
    out = io.StringIO()
    bar = progress_bar(total=839, desc="merges", unit="merge", enabled=True, file=out)
    bar.update(440)
    finish_at_count(bar)
    bar.close()
    assert out.getvalue() == ""
    assert (bar.n, bar.total) == (440, 440)


def test_the_course_loops_that_end_at_once_draw_no_bar(capsys, tmp_path) -> None:
    train, heldout = split_train_heldout(COURSE_TEXT)
    counts = chunk_counts(train)
    compression_curve(train, heldout, num_merges=200, progress=True)
    naive_work(counts, 50, progress=True)
    incremental_work(counts, 200, progress=True)
    train_counts(Counter(counts), 200, progress=True)
    (tmp_path / "a.txt").write_text(COURSE_TEXT)
    assert "".join(read_pieces(tmp_path, progress=True)) == COURSE_TEXT
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
