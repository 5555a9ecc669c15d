"""How long one click of "Next merge" takes on 5 KB of text (target: under 50 ms).

It times opening the widget (the one training run, which learns every merge), the whole
Python side of a click: the next merge replayed from that list, the three panes redrawn as
HTML and the slider moved (ipywidgets runs without a kernel here, so nothing is sent to a
browser), and the bare replayed merge on its own. Side by side, it times Back, which rebuilds
the trainer and replays the earlier merges instead of undoing one. It prints figures and
asserts nothing; the browser's own drawing time is not included.

Run: ``.venv/bin/python bench/bench_widget.py``
"""

from __future__ import annotations

import statistics
import time

from bpe_course.texts import COURSE_TEXT, shakespeare_text
from bpe_course.widget import MergeStepper, watch_it_learn

TEXT_BYTES = 5_000
CLICKS = 300
TARGET_MS = 50.0


def sample_text() -> tuple[str, str]:
    try:
        return shakespeare_text(TEXT_BYTES), "Shakespeare"
    except FileNotFoundError:  # the corpus package is missing; the course text is smaller
        return (COURSE_TEXT * 3)[:TEXT_BYTES], "the course text, repeated"


def timed_ms(action) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    text, source = sample_text()
    start = time.perf_counter()
    widget = watch_it_learn(text)
    open_ms = (time.perf_counter() - start) * 1000
    clicks = min(CLICKS, widget.stepper.total_merges)
    next_ms = [timed_ms(widget.next_button.click) for _ in range(clicks)]
    stepper = MergeStepper(text)
    step_ms = [timed_ms(stepper.next) for _ in range(clicks)]
    back_ms = [timed_ms(widget.back_button.click) for _ in range(20)]

    median_next, worst_next = statistics.median(next_ms), max(next_ms)
    verdict = "met" if worst_next < TARGET_MS else "MISSED"
    print(
        f"bench_widget: {len(text.encode()):,} bytes of {source}, "
        f"{widget.stepper.total_merges} merges to the end"
    )
    print(f"  open the widget (one full run learns every merge): {open_ms:7.2f} ms")
    print(f"  Next merge, whole click, {clicks} clicks: median {median_next:6.2f} ms,", end=" ")
    print(f"worst {worst_next:6.2f} ms (target < {TARGET_MS:.0f} ms: {verdict})")
    print(f"    of which the replayed merge:       median {statistics.median(step_ms):6.3f} ms")
    median_back = statistics.median(back_ms)
    print(
        f"  Back, whole click (rebuild + replay ~{clicks} merges): median {median_back:6.2f} ms"
        f" = {median_back / median_next:.1f}x a Next click"
    )


if __name__ == "__main__":
    main()
