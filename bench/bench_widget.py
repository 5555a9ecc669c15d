"""How long one click of "Next merge" takes on 5 KB of text (target: under 50 ms).

It times opening the widget (the one training run, which learns every merge), the whole
Python side of a click: the next merge replayed from that list, the three panes redrawn as
HTML and the slider moved (ipywidgets runs without a kernel here, so nothing is sent to a
browser), and the bare replayed merge on its own. Side by side, it times Back, which rebuilds
the trainer and replays the earlier merges instead of undoing one. It prints figures and
asserts nothing; the browser's own drawing time is not included. The figures and the
target go to ``artifacts/bench/widget.json`` too (``bench/record.py``).

Run: ``.venv/bin/python bench/bench_widget.py [--bytes N] [--clicks N]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bpe_course.texts import COURSE_TEXT, shakespeare_text
from bpe_course.widget import MergeStepper, watch_it_learn

sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run
import record  # noqa: E402

TEXT_BYTES = 5_000
CLICKS = 300
TARGET_MS = 50.0


def sample_text(size: int = TEXT_BYTES) -> tuple[str, str]:
    try:
        return shakespeare_text(size), "Shakespeare"
    except FileNotFoundError:  # the corpus package is missing; the course text is smaller
        return (COURSE_TEXT * 3)[:size], "the course text, repeated"


def timed_ms(action) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes", type=int, default=TEXT_BYTES, help="the text's size")
    parser.add_argument("--clicks", type=int, default=CLICKS, help="Next clicks timed, at most")
    args = parser.parse_args()
    run = record.Run("widget", __file__)
    text, source = sample_text(args.bytes)
    start = time.perf_counter()
    widget = watch_it_learn(text)
    open_ms = (time.perf_counter() - start) * 1000
    clicks = min(args.clicks, widget.stepper.total_merges)
    next_ms = [timed_ms(widget.next_button.click) for _ in range(clicks)]
    stepper = MergeStepper(text)
    step_ms = [timed_ms(stepper.next) for _ in range(clicks)]
    back_ms = [timed_ms(widget.back_button.click) for _ in range(20)]

    median_next, worst_next = statistics.median(next_ms), max(next_ms)
    goal = run.target(f"Next merge, whole click, worst of {clicks} (ms)", worst_next, TARGET_MS)
    print(
        f"bench_widget: {len(text.encode()):,} bytes of {source}, "
        f"{widget.stepper.total_merges} merges to the end"
    )
    print(f"  open the widget (one full run learns every merge): {open_ms:7.2f} ms")
    print(f"  Next merge, whole click, {clicks} clicks: median {median_next:6.2f} ms,", end=" ")
    print(f"worst {worst_next:6.2f} ms (target <= {TARGET_MS:.0f} ms: {goal['verdict']})")
    median_step = statistics.median(step_ms)
    print(f"    of which the replayed merge:       median {median_step:6.3f} ms")
    median_back = statistics.median(back_ms)
    print(
        f"  Back, whole click (rebuild + replay ~{clicks} merges): median {median_back:6.2f} ms"
        f" = {median_back / median_next:.1f}x a Next click"
    )
    run.write(
        {
            "text": {"bytes": len(text.encode()), "source": source},
            "merges to the end": widget.stepper.total_merges,
            "clicks": clicks,
            "open the widget (ms)": open_ms,
            "Next click (ms)": {"median": median_next, "worst": worst_next},
            "replayed merge alone, median (ms)": median_step,
            "Back click, median (ms)": median_back,
            "Back / Next": median_back / median_next,
        }
    )


if __name__ == "__main__":
    main()
