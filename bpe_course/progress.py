"""Progress bars for the course's long loops: shown only once the work has taken a while.

:func:`progress_bar` is ``tqdm.auto``'s bar (Jupyter's widget in a notebook, text elsewhere)
that stays hidden for its first :data:`SHOW_AFTER_SECONDS`: a loop that ends before then
draws nothing, rather than a bar full at once and a rate of half a million merges a second.
:func:`finish_at_count` ends a bar whose total was only an upper bound full at what was done.
Training stops when no pair is left, often well before the bound it started from. Setting
``total`` afterwards fixes tqdm's text but not the bar of Jupyter's widget, which then reads
"440/440" half full; ``reset`` sets both, and restarts tqdm's clock, which this puts back so
the rate shown is the whole run's.

But: it does not time anything itself; the caller owns the bar and closes it.

>>> import io
>>> bar = progress_bar(total=839, desc="merges", unit="merge", file=io.StringIO())
>>> _ = bar.update(440)
>>> finish_at_count(bar)
>>> bar.n, bar.total
(440, 440)
"""

from __future__ import annotations

from typing import Any

from tqdm.auto import tqdm

SHOW_AFTER_SECONDS = 1.0  # a wait shorter than this needs no bar


def progress_bar(total: int, desc: str, unit: str, enabled: bool = True, **options: Any) -> tqdm:
    """A bar of ``total`` steps that appears only if the work is still going after
    :data:`SHOW_AFTER_SECONDS`; ``enabled=False`` draws nothing at all. ``options`` go to
    tqdm as they are (``unit_scale``, ``file``)."""
    return tqdm(
        total=total, desc=desc, unit=unit, disable=not enabled, delay=SHOW_AFTER_SECONDS, **options
    )


def finish_at_count(bar: Any) -> None:
    """Make ``bar``'s total the count it reached, widget included, keeping its clock."""
    done = bar.n
    if done == bar.total:
        return  # it reached its bound: already full
    if bar.disable or not _has_shown(bar):
        bar.total = done  # nothing drawn, nothing to redraw (closing draws nothing either)
        return
    started = bar.start_t
    bar.reset(total=done)
    bar.start_t = started  # reset() restarts the clock: the rate would be of no time at all
    bar.n = bar.last_print_n = done
    bar.refresh()


def _has_shown(bar: Any) -> bool:
    """Whether ``bar`` has drawn itself yet (a bar with a delay waits until it passes)."""
    if hasattr(bar, "displayed"):  # Jupyter's widget bar keeps count itself
        return bool(bar.displayed)
    return bar.delay <= 0 or bar.last_print_t >= bar.start_t + bar.delay
