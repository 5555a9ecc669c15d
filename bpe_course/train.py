"""Train on your own text from the shell: ``python -m bpe_course.train TEXT --merges N``.

It counts the text of a file, a folder's ``.txt`` files or several (in worker processes
here, or on a Dask cluster with ``--scheduler``: ``local`` for one on this machine, or the
address of a scheduler of your own), learns the merges with the course's array engine and
writes, into ``--out``: ``merges.json`` (the merges in order, each a pair of strings),
``vocab.json`` (each token's id: the characters of the text in code-point order, then one
token per merge) and ``curve.csv`` with ``curve.png`` (ρ, UTF-8 bytes per token on the
training text, after each merge). Progress bars count the bytes read and the merges made.
``make train TEXT=… MERGES=…`` runs it.

But: the curve is measured on the text trained on, not on held-out text (lesson 3's
overfitting curve holds some out); and the course's grading cluster is not a place to run
it: bring a cluster of your own.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bpe_course.arrays import ArrayTrainer, Pair
from bpe_course.large import count_files
from bpe_course.progress import finish_at_count, progress_bar


def train(
    counts: Counter[str], num_merges: int, progress: bool
) -> tuple[list[Pair], list[str], list[float]]:
    """The merges, the vocabulary (tokens in id order) and ρ after 0, 1, … merges, learned
    on ``counts``, which it empties as the arrays take them over."""
    text_bytes = sum(len(chunk.encode("utf-8")) * n for chunk, n in counts.items())
    if not text_bytes:
        raise ValueError("the text is empty; give a file with some text in it")
    trainer = ArrayTrainer(counts, take=True)  # empties the table of strings as it reads it
    del counts
    alphabet = list(trainer.strings)
    rho = [text_bytes / trainer.total_tokens]
    with progress_bar(num_merges, "merges", "merge", enabled=progress) as bar:
        while len(trainer.merges) < num_merges and trainer.step() is not None:
            rho.append(text_bytes / trainer.total_tokens)
            bar.update()
        finish_at_count(bar)
    vocabulary = alphabet + [left + right for left, right in trainer.merges]
    return trainer.merges, vocabulary, rho


def write_outputs(out: Path, merges: list[Pair], vocabulary: list[str], rho: list[float]) -> None:
    """merges.json, vocab.json, curve.csv and curve.png in ``out`` (made if need be)."""
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    (out / "merges.json").write_text(
        json.dumps([list(pair) for pair in merges], ensure_ascii=False) + "\n", encoding="utf-8"
    )
    # A token made twice (merges that spell it two ways) keeps its first id.
    ids: dict[str, int] = {}
    for token in vocabulary:
        ids.setdefault(token, len(ids))
    (out / "vocab.json").write_text(
        json.dumps(ids, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
    with open(out / "curve.csv", "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["merges", "bytes per token"])
        writer.writerows((k, f"{value:.6f}") for k, value in enumerate(rho))
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(range(len(rho)), rho, color="#0072B2")
    axes.set_xlabel("merges learned")
    axes.set_ylabel("ρ, UTF-8 bytes per token")
    axes.set_title("Compression of the training text as merges are learned")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out / "curve.png", dpi=100)
    plt.close(figure)


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """No client without ``scheduler``; else Dask's, imported only now."""
    if not scheduler:
        yield None
        return
    try:
        from bpe_course.dask_counting import dask_client
    except ImportError:
        raise SystemExit(
            "counting on Dask needs dask and distributed: pip install 'bpe-course[dask]'"
        ) from None
    with dask_client(scheduler, workers) as client:
        yield client


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.train", description=__doc__.split("\n")[0]
    )
    parser.add_argument("text", nargs="+", help="a text file, a folder of .txt files, or several")
    parser.add_argument("--merges", type=int, default=10_000, help="merges to learn (10000)")
    parser.add_argument("--out", default="artifacts/train", help="folder for the results")
    parser.add_argument(
        "--scheduler",
        default=None,
        help="count on Dask: 'local' (a cluster on this machine) or a scheduler's address",
    )
    parser.add_argument("--workers", type=int, default=None, help="counting processes")
    parser.add_argument(
        "--min-count",
        type=int,
        default=1,
        help="leave out chunks seen fewer times than this (less memory, other merges)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    options = parser.parse_args(argv)
    if options.merges < 1:
        parser.error(f"--merges must be 1 or more, got {options.merges}")
    if options.min_count < 1:
        parser.error(f"--min-count must be 1 or more, got {options.min_count}")
    if options.workers is not None and options.workers < 1:
        parser.error(f"--workers must be 1 or more, got {options.workers}")
    try:
        with _client(options.scheduler, options.workers) as client:
            counts = count_files(options.text, options.workers, not options.quiet, client=client)
        # the cluster is closed by now: its workers' memory is free for training
        for chunk in [chunk for chunk, n in counts.items() if n < options.min_count]:
            del counts[chunk]
        merges, vocabulary, rho = train(counts, options.merges, not options.quiet)
    except (OSError, ValueError) as error:  # a missing, unreadable or non-UTF-8 file
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = Path(options.out)
    write_outputs(out, merges, vocabulary, rho)
    print(
        f"learned {len(merges):,} merges; ρ went from {rho[0]:.2f} to {rho[-1]:.2f} bytes per "
        f"token; wrote merges.json, vocab.json, curve.csv and curve.png to {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
