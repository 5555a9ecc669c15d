"""End a progress bar whose total was only an upper bound, drawn full at what was done.

Training stops when no pair is left, often well before the bound it started from. Setting
``total`` afterwards fixes tqdm's text but not the bar of Jupyter's widget, which then reads
"440/440" half full; ``reset`` sets both.

But: it does not draw or time anything else; the caller owns the bar.

>>> import io
>>> from tqdm import tqdm
>>> bar = tqdm(total=839, file=io.StringIO())
>>> _ = bar.update(440)
>>> finish_at_count(bar)
>>> bar.n, bar.total
(440, 440)
"""

from __future__ import annotations

from typing import Any


def finish_at_count(bar: Any) -> None:
    """Make ``bar``'s total the count it reached, widget included."""
    done = bar.n
    bar.reset(total=done)
    bar.update(done)
    bar.refresh()  # update() may skip drawing, being so soon after reset()
