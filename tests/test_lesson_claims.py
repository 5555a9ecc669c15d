"""What the lessons show of the textbook section's claims holds, recomputed from their output.

The slow tests run lessons 2 to 4 once (lesson 1 shows none of these claims) and check each
demonstration's printed facts against an independent recomputation: the fitted slopes of the
counted training work, the boundary-crossing merges of raw text, Hugging Face's number of
merges, the fast-path count, the two encoders of lesson 2's proof, the tokens encoding never
emits, and PyTorch against numpy (and the cell with PyTorch hidden). No test reads seconds.
The quick tests check the meters, the PyTorch switch and the reading list without a kernel.
"""

from __future__ import annotations

import re

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from bpe_course import (
    COURSE_TEXT,
    Encoder,
    chunk_counts,
    learn_merges,
    pretokenize,
    shakespeare_text,
    split_train_heldout,
)
from bpe_course.claims import HIDE_TORCH, runs, torch_hidden
from bpe_course.cost import incremental_work, naive_work
from bpe_course.display import SPACE
from bpe_course.engine import naive_merges
from bpe_course.real_tokenizers import tiktoken_encoding, tiktoken_ranks
from tests.conftest import ROOT

SOURCE = ROOT / "source" / "bpe"
LESSONS = ["02_encoding_by_rank", "03_real_text_overfitting", "04_making_it_fast"]


def unvisible(token: str) -> str:
    """Undo ``bpe_course.display.visible``."""
    return token.replace(SPACE, " ").replace("\\n", "\n").replace("\\t", "\t")


def crosses(token: str) -> bool:
    # Whitespace right after a character that is not whitespace, written out by hand.
    return any(not a.isspace() and b.isspace() for a, b in zip(token, token[1:]))


def master_cell(lesson: str, cell_id: str) -> str:
    nb = nbformat.read(SOURCE / f"{lesson}.ipynb", as_version=4)
    return next(cell.source for cell in nb.cells if cell.id == cell_id)


def run_cells(sources: list[str], env: dict[str, str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return nb


def text_of(cell: nbformat.NotebookNode) -> str:
    errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, nbformat.NotebookNode]:
    workdir = tmp_path_factory.mktemp("claims")
    runs_ = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(ROOT))  # the hidden cells import autograder
        patch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        patch.delenv(HIDE_TORCH, raising=False)
        for lesson in LESSONS:
            nb = nbformat.read(SOURCE / f"{lesson}.ipynb", as_version=4)
            client = NotebookClient(
                nb,
                timeout=120,
                kernel_name="python3",
                allow_errors=True,
                resources={"metadata": {"path": str(workdir)}},
            )
            client.execute()
            runs_[lesson] = nb
    return runs_


def output(lessons: dict[str, nbformat.NotebookNode], lesson: str, cell_id: str) -> str:
    return text_of(next(cell for cell in lessons[lesson].cells if cell.id == cell_id))


# Point 1 · the cost of training, counted.


@pytest.mark.slow
def test_the_simple_loops_counted_work_grows_faster(lessons: dict) -> None:
    cell = next(c for c in lessons["04_making_it_fast"].cells if c.id == "l04-cost")
    out = text_of(cell)
    rows = [
        tuple(int(n.replace(",", "")) for n in line.split())
        for line in out.splitlines()
        if re.fullmatch(r"\s*\d+\s+[\d,]+\s+[\d,]+", line)
    ]
    assert len(rows) >= 4, out
    merges, naive, fast = (np.array(column, dtype=float) for column in zip(*rows))
    naive_slope = np.polyfit(np.log(merges), np.log(naive), 1)[0]
    fast_slope = np.polyfit(np.log(merges), np.log(fast), 1)[0]
    assert naive_slope > fast_slope
    assert f"fitted slopes: simple loop {naive_slope:.2f}, incremental {fast_slope:.2f}" in out
    assert "the same merges both ways: True" in out
    assert "the simple loop pays for the whole table every merge" in out
    assert f"with slope {naive_slope:.2f}" in out and f"with slope {fast_slope:.2f}" in out
    assert any("image/png" in o.get("data", {}) for o in cell.outputs)
    # The table is the meters' own count on the course's text.
    counts = chunk_counts(COURSE_TEXT)
    assert naive_work(counts, int(merges[-1]))[0][int(merges[-1]) - 1] == naive[-1]


def test_the_meters_learn_the_trainers_merges() -> None:
    counts = chunk_counts(COURSE_TEXT[:2000])
    naive_total, naive_learned = naive_work(counts, 120)
    fast_total, fast_learned = incremental_work(counts, 120)
    assert naive_learned == naive_merges(counts, 120) == fast_learned == learn_merges(counts, 120)
    assert naive_total == sorted(naive_total) and fast_total == sorted(fast_total)
    assert fast_total[-1] < naive_total[-1]


# Point 2 · raw text against chunks.


@pytest.mark.slow
def test_marked_raw_merges_cross_a_boundary_and_chunk_merges_never(lessons: dict) -> None:
    out = output(lessons, "04_making_it_fast", "l04-raw-text")
    rows = [line.split() for line in out.splitlines() if re.match(r"\s*\d+ [✗·] ", line)]
    assert len(rows) == 30, out
    marked = 0
    for _, raw_mark, raw_token, chunk_mark, chunk_token in rows:
        assert (raw_mark == "✗") == crosses(unvisible(raw_token)), raw_token
        assert chunk_mark == "·" and not crosses(unvisible(chunk_token)), chunk_token
        marked += raw_mark == "✗"
    assert marked > 0
    assert f"across a word boundary: {marked} of 30 raw-text merges, 0 of 30 chunk merges" in out


# Point 3 · Hugging Face's trainer at scale.


@pytest.mark.slow
def test_hugging_face_and_ours_ran_the_same_number_of_merges(lessons: dict) -> None:
    out = output(lessons, "04_making_it_fast", "l04-hf-race")
    ours, theirs = re.search(r"merges learned: ours ([\d,]+), Hugging Face ([\d,]+)", out).groups()
    assert ours == theirs == "2,000"
    machine = re.search(r"machine: (.*)", out).group(1)
    assert "usable cores" in machine and "tokenizers" in machine and "Python" in machine


# Point 4 · the fast path.


@pytest.mark.slow
def test_the_fast_path_count_is_the_chunks_found_in_the_vocabulary(lessons: dict) -> None:
    out = output(lessons, "04_making_it_fast", "l04-fast-path")
    plays_train, plays_heldout = split_train_heldout(shakespeare_text(max_bytes=1_000_000))
    table = learn_merges(chunk_counts(plays_train), 1000)
    vocabulary = tiktoken_ranks(table)  # every byte, and every token the table makes
    chunks = pretokenize(plays_heldout)
    found = sum(chunk.encode() in vocabulary for chunk in chunks)
    assert f"held-out chunks: {len(chunks):,}" in out
    assert f"chunks that are whole tokens: {found:,} (" in out
    assert "the same tokens every way: True" in out


# Point 5 · the proof, run.


@pytest.mark.slow
def test_the_two_encoders_agree_on_every_word(lessons: dict) -> None:
    out = output(lessons, "02_encoding_by_rank", "l02-proof-run")
    same, total = re.search(r"agree on ([\d,]+) of ([\d,]+) words", out).groups()
    assert same == total and "split differently: none" in out
    proof_train, proof_heldout = split_train_heldout(shakespeare_text(max_bytes=300_000))
    counts = chunk_counts(proof_train)
    table = learn_merges(counts, 3000)
    seen = list(counts)
    unseen = [chunk for chunk in chunk_counts(proof_heldout) if chunk not in counts]
    letters = [word for word in runs() + pretokenize("a a a aa aaa") if word not in seen]
    words = list(dict.fromkeys(seen + unseen + letters))
    assert f"{len(words):,} words" in out and int(total.replace(",", "")) == len(words)
    made = [left + right for left, right in table]
    by_rank = Encoder(table)
    for word in words:
        symbols = list(word)
        for (left, right), token in zip(table, made):  # replay the table in order
            if token not in word:
                continue
            joined, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (left, right):
                    joined.append(token)
                    i += 2
                else:
                    joined.append(symbols[i])
                    i += 1
            symbols = joined
        assert by_rank.encode_chunk(word) == symbols, word


# Point 6 · tokens that encoding never emits.


@pytest.mark.slow
def test_each_listed_never_emitted_token_is_absent_from_the_encoding(lessons: dict) -> None:
    out = output(lessons, "03_real_text_overfitting", "l03-rare-tokens")
    train, _ = split_train_heldout(COURSE_TEXT)
    plays_train, _ = split_train_heldout(shakespeare_text(max_bytes=300_000))
    tables = {
        "the paragraphs": (learn_merges(chunk_counts(train)), train),
        "the plays": (learn_merges(chunk_counts(plays_train), 3000), plays_train),
    }
    blocks = re.split(r"^(the paragraphs|the plays): ", out, flags=re.MULTILINE)[1:]
    assert [blocks[0], blocks[2]] == list(tables), out
    for name, block in zip(blocks[::2], blocks[1::2]):
        table, text = tables[name]
        assert block.startswith(f"{len(table):,} merges make")
        encoding = tiktoken_encoding(table)  # an independent encoder, in Rust
        emitted: dict[str, int] = {}
        for token in encoding.encode_ordinary(text):
            piece = encoding.decode_single_token_bytes(token).decode()
            emitted[piece] = emitted.get(piece, 0) + 1
        for times in (0, 1):
            line = re.search(rf"emitted {times} times? +\(merge:token\): (.*)", block).group(1)
            listed = [item.split(":", 1) for item in line.split()]
            assert listed, block
            for rank, shown in listed:
                token = unvisible(shown)
                assert "".join(table[int(rank) - 1]) == token, (name, rank, token)
                assert emitted.get(token, 0) == times, (name, token, emitted.get(token))


# Point 7 · PyTorch checked against numpy, or numpy alone.


@pytest.mark.slow
def test_with_pytorch_the_counts_are_checked_against_numpy(lessons: dict) -> None:
    pytest.importorskip("torch")
    out = output(lessons, "04_making_it_fast", "l04-14")
    assert "the same counts as numpy's: True" in out
    assert "numpy: 999,954 byte pairs; the most frequent is 'e␣', 24,225 times" in out


SETUP = """import time
from bpe_course import shakespeare_text, visible
plays = shakespeare_text(max_bytes=1_000_000)"""


HIDDEN_BY = {
    "an environment variable": ("", {HIDE_TORCH: "1"}),
    "a sys.modules block": ("import sys\nsys.modules['torch'] = None  # import torch fails\n", {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("how", HIDDEN_BY)
def test_with_pytorch_hidden_the_cell_shows_numpy_and_make_torch(how: str) -> None:
    block, env = HIDDEN_BY[how]
    nb = run_cells([block + SETUP, master_cell("04_making_it_fast", "l04-14")], env)
    out = text_of(nb.cells[1])
    assert "numpy: 999,954 byte pairs; the most frequent is 'e␣', 24,225 times" in out
    assert "PyTorch is not installed (it is optional)" in out and "`make torch`" in out
    assert "PyTorch 2" not in out


def test_torch_hidden_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HIDE_TORCH, "1")
    assert torch_hidden()
    monkeypatch.setenv(HIDE_TORCH, "0")
    assert not torch_hidden()


# The reading list.


def test_the_reading_list_holds_the_sections_six_references() -> None:
    nb = nbformat.read(SOURCE / "04_making_it_fast.ipynb", as_version=4)
    text = next(cell.source for cell in nb.cells if "**Further reading.**" in cell.source)
    reading = text.split("**Further reading.**", 1)[1]
    items = re.findall(r"^- (.+(?:\n  .+)*)", reading, flags=re.MULTILINE)
    wanted = [
        "A New Algorithm for Data Compression",
        "Neural Machine Translation of Rare Words with Subword Units",
        "minbpe",
        "LLM course",
        "*tokenizers* (Hugging Face)",
        "A Formal Perspective on Byte-Pair Encoding",
    ]
    assert len(items) == 6, items
    for title in wanted:
        item = next((item for item in items if title in item), None)
        assert item is not None, f"the reading list lacks {title!r}"
        assert re.search(r"\): |: ", item), f"{title!r} says nothing of what it is for"
