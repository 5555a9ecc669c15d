"""The course's trainers against each other, and its encoder against tiktoken, on 1 MB.

On the chunk counts of about 1 MB of Shakespeare it times the naive ``train_bpe`` against the
incremental ``train_bpe_fast`` (and the library's array engine) at 500, 2000 and 5000 merges;
then ``bpe_course.Encoder`` against tiktoken's ``encode_ordinary`` (built from the same ranks)
on the next megabyte, held out, with a fresh encoder (every chunk met for the first time) and
one warmed on other text (the training text); then peak memory. Times are CPU seconds of one
thread on both sides, contenders run in turn, so a busy machine distorts the ratios little.
It also shows why Hugging Face's merges differ from ours: ties, and nothing else.

But: it compares no trainer with Hugging Face's for speed; that comparison starts from raw
text on both sides, in bench_scale.py. The naive trainer takes about 95 s at 5000 merges, so
it is timed at 500 and 2000 only unless ``BENCH_NAIVE_5000=1``. A trainer or encoder that is
fast but wrong stops the run.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_training.py``; the tables and the targets go
to ``artifacts/bench/training.json`` too, with the machine (``bench/record.py``).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bpe_course import Encoder, Trainer, chunk_counts, learn_merges_arrays, shakespeare_text
from bpe_course.pretokenize import ascii_chunk_starts, pretokenize
from bpe_course.real_tokenizers import hf_train, tiktoken_encoding
from solutions import train_bpe, train_bpe_fast
from solutions.hf_ties import train_bpe_hf_ties

sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run
import record  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MERGE_COUNTS = (500, 2000, 5000)
NAIVE_AT = MERGE_COUNTS if os.environ.get("BENCH_NAIVE_5000") else (500, 2000)
REPEATS = 3  # best of three for everything that takes under a few seconds
ENCODER_MERGES = 5000  # the table the encoders share, learned on the training megabyte


# CPU time of this process: other jobs on a shared machine barely move it, where they can
# double wall-clock times. Everything timed here runs on one core.
clock = time.process_time


def best_time(work: Callable[[], object], repeats: int = REPEATS) -> tuple[float, object]:
    """The least CPU time of ``repeats`` runs, and the result of the last one."""
    times = []
    for _ in range(repeats):
        start = clock()
        result = work()
        times.append(clock() - start)
    return min(times), result


def interleaved(
    ours: Callable[[], object], theirs: Callable[[], object], repeats: int = 2 * REPEATS
) -> tuple[dict[str, float], object]:
    """Least CPU and wall times of two jobs run in turn, and the first one's result."""
    times: dict[str, list[float]] = {"ours": [], "theirs": [], "ours wall": [], "theirs wall": []}
    results: dict[str, object] = {}
    for _ in range(repeats):
        for name, work in (("ours", ours), ("theirs", theirs)):
            start, wall = clock(), time.perf_counter()
            results[name] = work()
            times[name].append(clock() - start)
            times[name + " wall"].append(time.perf_counter() - wall)
    return {name: min(values) for name, values in times.items()}, results["ours"]


def texts() -> tuple[str, str]:
    """About 1 MB to train on and the following ~1 MB, held out, both cut at line ends."""
    train = shakespeare_text(max_bytes=1_000_000)
    both = shakespeare_text(max_bytes=2_000_000)
    return train, both[len(train) :]


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.0f} ms"


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |")


def bench_training(counts: dict[str, int]) -> dict[int, dict[str, float]]:
    times: dict[int, dict[str, float]] = {}
    rows = []
    for n in MERGE_COUNTS:
        best, fast = interleaved(
            lambda n=n: train_bpe_fast(counts, n), lambda n=n: learn_merges_arrays(counts, n)
        )
        if learn_merges_arrays(counts, n) != fast:
            sys.exit(f"learn_merges_arrays and train_bpe_fast disagree at {n} merges")
        times[n] = {"fast": best["ours"], "arrays": best["theirs"]}
        naive_cell = ratio_cell = "not run"
        if n in NAIVE_AT:
            naive_time, naive = best_time(lambda n=n: train_bpe(counts, n), repeats=1)
            if naive != fast:
                sys.exit(f"train_bpe_fast and train_bpe disagree at {n} merges")
            times[n]["naive"] = naive_time
            naive_cell = seconds(naive_time)
            ratio_cell = f"{naive_time / best['ours']:.0f}x"
        rows.append(
            [str(n), naive_cell, seconds(best["ours"]), seconds(best["theirs"]), ratio_cell]
        )
    print_table(
        [
            "merges",
            "train_bpe (naive)",
            "train_bpe_fast",
            "learn_merges_arrays",
            "naive / fast",
        ],
        rows,
    )
    print("(all three learn the same merges; the run stops if not)")
    return times


def bench_ties(counts: dict[str, int], n: int) -> dict[str, object]:
    ours, theirs = train_bpe_fast(counts, n), hf_train(counts, n)
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    if first is None:
        print(f"HF's {n} merges equal ours: no tie was settled differently")
        return {"merges": n, "first difference": None}
    trainer = Trainer(counts)
    for _ in range(first):
        trainer.step()
    ours_count = trainer.pair_counts[ours[first]]
    their_count = trainer.pair_counts[theirs[first]]
    replayed = train_bpe_hf_ties(counts, n) == theirs
    print(
        f"HF's merges equal ours up to merge {first} (0-based); there we pick {ours[first]} "
        f"and HF picks {theirs[first]}, both with count {ours_count} == {their_count}.\n"
        f"Our trainer with HF's tie rule (smaller token ids) reproduces all {n} of HF's "
        f"merges: {'yes' if replayed else 'NO'}; so every difference comes from a tie."
    )
    if ours_count != their_count or not replayed:
        sys.exit("Hugging Face's merges differ from ours by more than ties")
    return {
        "merges": n,
        "first difference (0-based)": first,
        "ours picks": list(ours[first]),
        "HF picks": list(theirs[first]),
        "count of both": ours_count,
        "HF's tie rule on our trainer reproduces HF": replayed,
    }


def bench_encoding(merges: list[tuple[str, str]], train: str, heldout: str) -> dict[str, float]:
    """CPU times on the held-out text: tiktoken, a fresh Encoder, one warmed on other text.

    Both sides run on one thread (tiktoken's ``encode_ordinary`` is single-threaded, and so is
    everything ``Encoder`` does). The fresh Encoder's time includes building it; tiktoken's
    ``Encoding`` is built once, outside the clock. The warm-up text is the training text, never
    the held-out text itself, so the warm encoder still meets the held-out text's new chunks.
    """
    if not heldout.isascii():  # the plays are; Encoder's array route takes ASCII alone
        sys.exit("the held-out text is not ASCII: Encoder would not take its array route")
    size_mb = len(heldout.encode()) / 1e6
    encoding = tiktoken_encoding(merges)
    ids = encoding.encode_ordinary(heldout)
    cold, warmed, tiktoken_times = [], [], []
    for _ in range(2 * REPEATS):  # in turn: a fresh encoder, a warmed one, tiktoken
        start = clock()
        tokens = Encoder(merges).encode(heldout)  # construction included
        cold.append(clock() - start)
        encoder = Encoder(merges)
        encoder.encode(train)  # a long-lived encoder has met other text's chunks
        start = clock()
        encoder.encode(heldout)
        warmed.append(clock() - start)
        start = clock()
        encoding.encode_ordinary(heldout)
        tiktoken_times.append(clock() - start)
    cold_time, warmed_time, tiktoken_time = min(cold), min(warmed), min(tiktoken_times)
    warm_time, _ = best_time(lambda: encoder.encode(heldout))
    split_time, _ = best_time(lambda: pretokenize(heldout))
    codes = np.frombuffer(heldout.encode(), dtype=np.uint8)
    cuts_time, _ = best_time(lambda: ascii_chunk_starts(codes))
    if [encoding.decode_single_token_bytes(t).decode() for t in ids] != tokens:
        sys.exit("bpe_course.Encoder and tiktoken disagree on the held-out text")
    rows = [
        ["tiktoken encode_ordinary", seconds(tiktoken_time), f"{size_mb / tiktoken_time:.1f}", "1"],
        [
            "Encoder, fresh (cold)",
            seconds(cold_time),
            f"{size_mb / cold_time:.1f}",
            f"{cold_time / tiktoken_time:.2f}",
        ],
        [
            "Encoder, warmed on other text (the training text)",
            seconds(warmed_time),
            f"{size_mb / warmed_time:.1f}",
            f"{warmed_time / tiktoken_time:.2f}",
        ],
    ]
    print_table(["encoder", "time", "MB/s", "time / tiktoken"], rows)
    print(
        f"({len(tokens):,} tokens, the same from both; one thread each. Footnote: the same "
        f"Encoder encoding this text a second time, every chunk cached, takes "
        f"{seconds(warm_time)}, {warm_time / tiktoken_time:.2f}x tiktoken; splitting it into "
        f"chunks alone (pretokenize) takes {seconds(split_time)}, "
        f"{split_time / tiktoken_time:.2f}x; finding the same cuts with arrays, as Encoder "
        f"does on a long ASCII text (ascii_chunk_starts), {seconds(cuts_time)}.)"
    )
    return {
        "MB": size_mb,
        "tokens": len(tokens),
        "tiktoken": tiktoken_time,
        "cold": cold_time,
        "warmed": warmed_time,
        "warm": warm_time,
        "pretokenize": split_time,
        "array cuts": cuts_time,
    }


def encoding_section(
    run: record.Run, merges: list[tuple[str, str]], train: str, heldout: str
) -> dict[str, float]:
    """``bench_encoding``'s table, and its two targets judged into ``run``'s record.

    bench_scale.py runs it too, so that one run of that bench judges the encoder as well.
    """
    print(
        f"\n## Encoding {len(heldout.encode()) / 1e6:.2f} MB of held-out Shakespeare "
        f"with a {len(merges)}-merge table; CPU time, one thread each, best of {2 * REPEATS}, "
        "run in turn\n"
    )
    enc = bench_encoding(merges, train, heldout)
    print()
    for row, key, limit in (
        ("fresh (cold)", "cold", 1.5),
        ("warmed on other text", "warmed", 1.0),
    ):
        ratio = enc[key] / enc["tiktoken"]
        goal = f"Encoder, {row} / tiktoken encode_ordinary, CPU time, one thread each"
        verdict = run.target(goal, ratio, limit)["verdict"]
        print(f"target Encoder {row} / tiktoken <= {limit}: {ratio:.2f}, {verdict}")
    return enc


MEMORY_SCRIPT = """
import pickle, sys, tracemalloc
from bpe_course import Encoder
from bpe_course.real_tokenizers import tiktoken_encoding
from solutions import train_bpe, train_bpe_fast
counts, heldout, merges = pickle.load(open(sys.argv[2], "rb"))
work = {
    "train_bpe, 50 merges": lambda: train_bpe(counts, 50),
    "train_bpe_fast, 5000 merges": lambda: train_bpe_fast(counts, 5000),
    "Encoder, held-out text": lambda: Encoder(merges).encode(heldout),
    "tiktoken, held-out text": lambda: tiktoken_encoding(merges).encode_ordinary(heldout),
}[sys.argv[1]]

def kilobytes(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # restart the kernel's peak-RSS mark (VmHWM) from the current size
start = kilobytes("VmRSS")
work()
rss_growth = kilobytes("VmHWM") - start
tracemalloc.start()
work()
python_peak = tracemalloc.get_traced_memory()[1] // 1024
print(rss_growth, python_peak)
"""

MEMORY_JOBS = (
    "train_bpe, 50 merges",
    "train_bpe_fast, 5000 merges",
    "Encoder, held-out text",
    "tiktoken, held-out text",
)


def bench_memory(
    counts: dict[str, int], heldout: str, merges: list[tuple[str, str]]
) -> dict[str, dict[str, float]]:
    """Peak memory of each job in a fresh interpreter: growth of resident memory (all of
    it, Rust included) and the peak of Python's own allocations (tracemalloc)."""
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "state.pickle"
        state.write_bytes(pickle.dumps((counts, heldout, merges)))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        rows, peaks = [], {}
        for job in MEMORY_JOBS:
            out = subprocess.run(
                [sys.executable, "-c", MEMORY_SCRIPT, job, str(state)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            rss_growth, python_peak = (int(kb) / 1024 for kb in out)
            rows.append([job, f"{rss_growth:.0f} MB", f"{python_peak:.0f} MB"])
            peaks[job] = {
                "RSS growth (MB)": rss_growth,
                "Python allocations peak (MB)": python_peak,
            }
    print_table(["job (own process)", "peak RSS growth", "Python allocations peak"], rows)
    print(
        "(train_bpe's memory does not grow with merges: it rebuilds its counts every step;\n"
        " tiktoken's Rust allocations show in RSS only; RSS counts whole pages the process keeps)"
    )
    return peaks


def main() -> None:
    run = record.Run("training", __file__)
    started, load_at_start = time.perf_counter(), os.getloadavg()[0]
    train, heldout = texts()
    counts = chunk_counts(train)
    print(
        f"\n## Training: {len(train.encode()) / 1e6:.2f} MB of Shakespeare, "
        f"{len(counts):,} distinct chunks, {sum(counts.values()):,} in all; CPU time; "
        f"fast and arrays: best of {2 * REPEATS}, run in turn; naive: one run each\n"
    )
    times = bench_training(counts)
    ratio_2000 = times[2000]["naive"] / times[2000]["fast"]
    faster = run.target(
        "train_bpe (naive) / train_bpe_fast at 2000 merges, CPU time",
        ratio_2000,
        100,
        at_least=True,
    )
    print(f"\ntarget naive/fast >= 100 at 2000 merges: {ratio_2000:.0f}x, {faster['verdict']}")
    print("\n## Ties: Hugging Face's trainer against ours, 2000 merges\n")
    ties = bench_ties(counts, 2000)
    merges = train_bpe_fast(counts, ENCODER_MERGES)
    enc = encoding_section(run, merges, train, heldout)
    print("\n## Peak memory\n")
    memory = bench_memory(counts, heldout, merges)
    took = time.perf_counter() - started
    print(
        f"\nbench_training took {took:.0f} s; load average "
        f"{load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
        f"({os.cpu_count()} cores): other work on the machine slows the naive column most"
    )
    run.write(
        {
            "text": {
                "training (MB)": len(train.encode()) / 1e6,
                "distinct chunks": len(counts),
                "chunks in all": sum(counts.values()),
                "held out (MB)": len(heldout.encode()) / 1e6,
            },
            "training, CPU s": [
                {
                    "merges": n,
                    "train_bpe (naive)": t.get("naive"),  # None: not run at this count
                    "train_bpe_fast": t["fast"],
                    "learn_merges_arrays": t["arrays"],
                    "naive / fast": t["naive"] / t["fast"] if "naive" in t else None,
                }
                for n, t in times.items()
            ],
            "ties against Hugging Face": ties,
            "encoding the held-out text, CPU s": {
                "tiktoken encode_ordinary": enc["tiktoken"],
                "Encoder, fresh (cold)": enc["cold"],
                "Encoder, warmed on other text (the training text)": enc["warmed"],
                "Encoder, the same text again (every chunk cached)": enc["warm"],
                "pretokenize alone": enc["pretokenize"],
                "ascii_chunk_starts alone": enc["array cuts"],
                "tokens": enc["tokens"],
            },
            "peak memory, each job in its own process": memory,
            "seconds in all": took,
        }
    )


if __name__ == "__main__":
    main()
