"""The overfitting curve: compression on training and held-out text as merges are learned.

:func:`plot_compression_curve` draws a :class:`~bpe_course.compression.CompressionCurve`
(ρ, bytes per token, against the number of merges) and marks where the two lines part;
:func:`describe_compression_curve` says the same in a sentence, from the same numbers, for
readers who cannot see the figure. The lines differ by colour (Okabe-Ito blue and
vermillion, safe for colour-blind readers), style and marker.
:func:`overfitting_curve` is the one call for a learner's own text (a str) or file (a
``Path``, read and counted in parallel by ``bpe_course.large``): it splits it, trains on the
first part and measures both parts.

But: measuring lives in ``bpe_course.compression`` and ``bpe_course.large``; this file only
splits and draws.

>>> from bpe_course.compression import CompressionCurve
>>> curve = CompressionCurve([("a", "b")] * 4, [1.0, 1.2, 1.5, 2.0, 2.6], [1.0, 1.2, 1.4, 1.5, 1.5])
>>> separation_point(curve)
2
"""

from __future__ import annotations

import os
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from bpe_course.compression import CompressionCurve, compression_curve
from bpe_course.large import DEFAULT_MERGES, file_curve
from bpe_course.texts import split_train_heldout


def separation_point(curve: CompressionCurve, gap: float = 0.05) -> int | None:
    """The first merge count from which training ρ stays more than ``gap`` (5 %) above
    held-out ρ, compared with where they started; ``None`` if they never part that much."""
    start = curve.train_rho[0] / curve.heldout_rho[0]
    apart = [t / h / start - 1 > gap for t, h in zip(curve.train_rho, curve.heldout_rho)]
    if not apart or not apart[-1]:
        return None
    k = len(apart) - 1
    while k > 0 and apart[k - 1]:
        k -= 1
    return k


BLUE, VERMILLION, GREY = "#0072B2", "#D55E00", "#595959"


def describe_compression_curve(curve: CompressionCurve) -> str:
    """The overfitting curve in words: where each line starts and ends, and where they part.

    >>> from bpe_course.compression import CompressionCurve
    >>> train, heldout = [1.0, 1.2, 1.5, 2.0, 2.6], [1.0, 1.2, 1.4, 1.5, 1.5]
    >>> curve = CompressionCurve([("a", "b")] * 4, train, heldout)
    >>> print(describe_compression_curve(curve))  # doctest: +NORMALIZE_WHITESPACE
    Line chart of compression (ρ, bytes per token) against 0 to 4 merges. Training text
    (solid blue line, circles) starts at 1.00 and ends at 2.60; held-out text (dashed
    vermillion line, squares) starts at 1.00 and ends at 1.50. They part at 2 merges, where
    training is at 1.50 and held-out at 1.40; from there training keeps rising faster.
    """
    train, heldout = curve.train_rho, curve.heldout_rho
    last = len(train) - 1
    text = (
        f"Line chart of compression (ρ, bytes per token) against 0 to {last:,} merges. "
        f"Training text (solid blue line, circles) starts at {train[0]:.2f} and ends at "
        f"{train[-1]:.2f}; held-out text (dashed vermillion line, squares) starts at "
        f"{heldout[0]:.2f} and ends at {heldout[-1]:.2f}."
    )
    split = separation_point(curve)
    if split is None:
        return text + " The two lines never part by more than 5 %."
    return text + (
        f" They part at {split:,} merges, where training is at {train[split]:.2f} and "
        f"held-out at {heldout[split]:.2f}; from there training keeps rising faster."
    )


def plot_compression_curve(curve: CompressionCurve, title: str | None = None) -> Figure:
    """Training and held-out ρ against the number of merges, one line each.

    The figure is made with pyplot, so a notebook shows it at the end of the cell even
    when it is assigned (``fig = plot_compression_curve(curve)``).
    """
    if not isinstance(curve, CompressionCurve) or not curve.train_rho:
        raise ValueError(
            "plot_compression_curve needs the result of compression_curve(train_text, "
            f"heldout_text); got {type(curve).__name__}"
        )
    merges = range(len(curve.train_rho))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    every = max(1, len(curve.train_rho) // 12)  # a dozen markers per line, not one per merge
    style: dict[str, Any] = {"markevery": every, "markersize": 5}
    ax.plot(merges, curve.train_rho, label="training text", color=BLUE, marker="o", **style)
    ax.plot(
        merges, curve.heldout_rho, label="held-out text", color=VERMILLION, linestyle="--",
        marker="s", **style,
    )  # fmt: skip
    split = separation_point(curve)
    if split is not None:
        ax.axvline(split, color=GREY, linestyle=":", linewidth=1)
        ax.annotate(
            f"they part here\n({split} merges)",
            xy=(split, curve.heldout_rho[split]),
            xytext=(8, -40),
            textcoords="offset points",
            color=GREY,
            arrowprops={"arrowstyle": "->", "color": GREY},
        )
    ax.set_xlabel("number of merges")
    ax.set_ylabel("ρ, bytes per token (higher compresses more)")
    ax.set_title(title or "Compression on training vs held-out text")
    ax.set_xlim(0, max(1, len(curve.train_rho) - 1))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def overfitting_curve(
    text: str | os.PathLike[str] | None = None,
    train_fraction: float = 2 / 3,
    num_merges: int | None = None,
    progress: bool = True,
    *,
    path: str | os.PathLike[str] | None = None,
    workers: int | None = None,
) -> CompressionCurve:
    """The compression curve of your own text: train on its start, hold out the rest.

    A ``str`` is always the text itself. To read a UTF-8 file, or every ``.txt`` file in a
    folder, pass a :class:`pathlib.Path` or use the ``path=`` keyword (which also takes a
    str). Nothing is guessed, so a file name given as a plain str is trained on as text; the
    "too short" error then says how to pass a path. Long runs show a progress bar.

    A str trains until every training chunk is one token unless ``num_merges`` says less. A
    path may be hundreds of megabytes: it is streamed, its two parts are counted in
    ``workers`` processes (default: one per core; ``bpe_course.large``), and it trains at
    most ``DEFAULT_MERGES`` (10,000) merges unless ``num_merges`` says otherwise. The
    training part ends at the first space from ``train_fraction`` of its bytes on.

    >>> curve = overfitting_curve("the cat sat on the mat " * 30, progress=False)
    >>> curve.train_rho[0], curve.num_merges
    (1.0, 12)
    """
    if path is not None and text is not None:
        raise ValueError("overfitting_curve takes the text or path=..., not both")
    if path is None and isinstance(text, os.PathLike):
        text, path = None, text
    if path is not None:  # its errors name the path
        merges = DEFAULT_MERGES if num_merges is None else num_merges
        return file_curve(path, train_fraction, merges, workers, progress)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            "overfitting_curve needs some text, or a file given as Path(...) or path=...; got "
            + (repr(text) if isinstance(text, str) else type(text).__name__)
        )
    train, heldout = split_train_heldout(text, train_fraction)
    if not heldout.strip() or not heldout[0].isspace():  # no word left to hold out
        hint = ""
        name = text.strip()
        if len(name) < 200 and not any(c.isspace() for c in name):
            hint = f"; if {name!r} is a file, pass Path({name!r}) or path={name!r}"
        raise ValueError(
            "the text is too short to hold part of it out; give it a few sentences at least" + hint
        )
    return compression_curve(train, heldout, num_merges=num_merges, progress=progress)
