"""What the lessons show of the textbook section's claims holds, recomputed from their output.

The slow tests run lessons 2 to 4 once, and of lesson 1 only its corpus and its tie cell, and
check each demonstration's printed facts against an independent recomputation: the two tables
that ties left to set order learn under two hash seeds, the leftmost-pair encoding of "steat",
the characters that have no token id and the bytes that all have one, the merges of raw text
that cross a space, the ratios the prose of lesson 3 explains, the fitted slopes of the counted
training work, Hugging Face's number of merges, the fast-path count, the two encoders of lesson
2's proof, the tokens encoding never emits, and PyTorch against numpy (and the cell with
PyTorch hidden). No test reads seconds.
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


# Lesson 1 · ties left to a set's order, in two fresh interpreters.

TIE_CORPUS = {"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}


def pairs_in(line: str) -> list[tuple[str, str]]:
    return [(left, right) for left, right in re.findall(r"\(([^ ,()]+), ([^ ,()]+)\)", line)]


def is_a_tie_choice(table: list[tuple[str, str]], corpus: dict[str, int]) -> bool:
    """True when each merge was a pair of the top count at its step, whatever broke the tie."""
    words = {tuple(word): count for word, count in corpus.items()}
    for left, right in table:
        counts: dict[tuple[str, str], int] = {}
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if counts.get((left, right)) != max(counts.values(), default=None):
            return False
        words = {
            tuple(merge_pair_by_hand(symbols, (left, right))): c for symbols, c in words.items()
        }
    return all(len(symbols) == 1 for symbols in words)  # trained until nothing is left to join


def merge_pair_by_hand(symbols: tuple[str, ...], pair: tuple[str, str]) -> list[str]:
    out, i = [], 0
    while i < len(symbols):
        if tuple(symbols[i : i + 2]) == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


@pytest.fixture(scope="module")
def lesson_1_ties() -> str:
    # Two cells of lesson 1 (the corpus and the demonstration), not the whole lesson again.
    sources = [master_cell("01_bpe_by_hand", "l01-02"), master_cell("01_bpe_by_hand", "l01-ties")]
    return text_of(run_cells(sources, {"PYTHONPATH": str(ROOT)}).cells[1])


@pytest.mark.slow
def test_two_hash_seeds_give_two_tables_when_ties_follow_set_order(lesson_1_ties: str) -> None:
    out = lesson_1_ties
    set_block, rule_block = out.split("ties to the smallest pair", 1)
    seeded = re.findall(r"PYTHONHASHSEED=(\d+): (.*)", set_block)
    assert len(seeded) == 2 and seeded[0][0] != seeded[1][0], out
    tables = [pairs_in(line) for _, line in seeded]
    for table in tables:
        assert is_a_tie_choice(table, TIE_CORPUS), table
    tokens = [{left + right for left, right in table} for table in tables]
    assert tokens[0] != tokens[1], "the two seeds learned the same vocabulary"
    first = next(i for i, (a, b) in enumerate(zip(*tables)) if a != b)
    a, b = tables[0][first], tables[1][first]
    assert f"first difference: merge {first + 1}, ({a[0]}, {a[1]}) against ({b[0]}, {b[1]})" in out
    ruled = re.findall(r"PYTHONHASHSEED=(\d+): (.*)", rule_block)
    assert [seed for seed, _ in ruled] == [seed for seed, _ in seeded], out
    for _, line in ruled:
        assert pairs_in(line) == learn_merges(TIE_CORPUS)
    assert "one table under both seeds: True" in rule_block


# Lesson 2 · the leftmost pair against the lowest rank, and tokens without an id.


@pytest.mark.slow
def test_the_leftmost_rule_glues_t_ea_where_rank_order_makes_eat(lessons: dict) -> None:
    out = output(lessons, "02_encoding_by_rank", "l02-leftmost")
    table = learn_merges(TIE_CORPUS, 6)
    known = set(table)
    for word in ("seats", "steat"):
        symbols = list(word)  # the leftmost rule, written out again
        while at := next(
            (i + 1 for i, pair in enumerate(zip(symbols, symbols[1:])) if pair in known), 0
        ):
            symbols[at - 1 : at + 1] = [symbols[at - 1] + symbols[at]]
        by_rank = " + ".join(Encoder(table).encode_chunk(word))
        assert re.search(
            rf"^{word} +{re.escape(by_rank)} +{re.escape(' + '.join(symbols))}$", out, re.M
        ), out
    assert re.search(r"^steat +s \+ t \+ eat +s \+ tea \+ t$", out, re.M), out


@pytest.mark.slow
def test_z_and_an_emoji_have_no_character_id_but_every_byte_has_one(lessons: dict) -> None:
    out = output(lessons, "02_encoding_by_rank", "l02-ids")
    word = "zest\N{TEACUP WITHOUT HANDLE}"
    characters, bytes_ = out.split("byte level", 1)
    alphabet = sorted(set("".join(TIE_CORPUS)))
    shown = re.findall(r"'(.)' → (no id|\d+)", characters)
    expected = [(c, str(alphabet.index(c)) if c in alphabet else "no id") for c in word]
    assert shown == expected, characters
    ids = [int(i) for i in re.findall(r"→ (\d+)", bytes_)]
    assert ids == list(word.encode()), bytes_  # each byte its own token, its id its value
    assert "no id" not in bytes_


# Lesson 3 · raw text glues across spaces; an emoji without an id; what the ratios mean.


@pytest.mark.slow
def test_raw_text_merges_that_cross_a_space_are_the_ones_listed(lessons: dict) -> None:
    out = output(lessons, "03_real_text_overfitting", "l03-raw")
    raw = [left + right for left, right in learn_merges({COURSE_TEXT: 1}, 30)]
    pre = [left + right for left, right in learn_merges(chunk_counts(COURSE_TEXT), 30)]
    crossing = [token for token in raw if crosses(token)]
    assert crossing and not any(crosses(token) for token in pre)
    line = re.search(r"cross a space: (\d+) of 30: (.*)", out)
    assert line is not None, out
    assert int(line.group(1)) == len(crossing)
    assert [unvisible(t) for t in line.group(2).split()] == crossing
    assert "inside chunks: 0 of 30" in out
    prose = master_cell("03_real_text_overfitting", "l03-raw-why")
    for shown in re.findall(r"`([^`]*␣[^`]*)`", prose):  # named raw merges cross, chunk ones not
        token = unvisible(shown)
        assert token in (crossing if crosses(token) else pre), f"the prose names {shown}"
    named = re.search(r"By merge (\d+) the raw table has `([^`]+)`", prose)
    assert named is not None, prose
    number, shown = named.groups()
    assert raw[int(number) - 1] == unvisible(shown)
    assert f"{len(crossing)} of the first 30 raw merges" in prose


@pytest.mark.slow
def test_the_emoji_has_no_id_in_the_paragraphs_vocabulary(lessons: dict) -> None:
    out = output(lessons, "03_real_text_overfitting", "l03-no-id")
    characters, bytes_ = out.split("byte level", 1)
    assert "'\N{TEACUP WITHOUT HANDLE}' → no id" in characters
    assert re.findall(r"no id", characters) == ["no id"], characters
    ids = [int(i) for i in re.findall(r"→ (\d+)", bytes_)]
    assert ids[-4:] == list("\N{TEACUP WITHOUT HANDLE}".encode())
    assert "no id" not in bytes_


@pytest.mark.slow
@pytest.mark.parametrize(("cell_id", "prose_id"), [("l03-10", "l03-11"), ("l03-18", "l03-19")])
def test_the_prose_says_what_the_last_ratio_is(lessons: dict, cell_id: str, prose_id: str) -> None:
    out = output(lessons, "03_real_text_overfitting", cell_id)
    last = out.strip().splitlines()[-1].split()
    train_rho, heldout_rho, ratio = (float(x) for x in last[1:])
    assert abs(train_rho / heldout_rho - ratio) < 0.01
    prose = master_cell("03_real_text_overfitting", prose_id)
    assert f"{ratio:.2f}" in prose, f"{prose_id} should say what {ratio:.2f} means"


def test_the_floor_s_figures_are_those_of_train_on_files_on_the_plays(tmp_path) -> None:
    # Quick, no kernel: the figures lesson 3's prose states for min_count=2, recomputed with
    # the trainer a learner would call on a file (the lesson's cell uses learn_merges).
    from bpe_course.large import train_on_files

    train, _ = split_train_heldout(shakespeare_text(max_bytes=300_000))
    path = tmp_path / "plays.txt"
    path.write_bytes(train.encode("utf-8"))
    counts = chunk_counts(train)
    floored = {chunk: n for chunk, n in counts.items() if n >= 2}
    full = train_on_files(path, 3000, workers=1, progress=False)
    kept = train_on_files(path, 3000, workers=1, progress=False, min_count=2)
    first = next(k for k, (a, b) in enumerate(zip(full, kept)) if a != b)
    both = len(set(full[:1000]) & set(kept[:1000]))
    dropped = 1 - sum(floored.values()) / sum(counts.values())
    prose = " ".join(master_cell("03_real_text_overfitting", "l03-floor-why").split())
    assert f"({len(counts):,} to {len(floored):,})" in prose
    assert f"only {dropped:.0%} of the chunks in the text" in prose
    assert f"from merge {first + 1} on" in prose
    assert f"{both:,} of the first 1,000 merges are in both tables" in prose
