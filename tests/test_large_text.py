"""Training at scale: pieces cut where chunks end, parallel counts, the array engine.

Counting a text piece by piece, in one process or in workers, must give exactly the counts of
the whole text, wherever the nominal piece boundary falls (inside a word, inside a multi-byte
character, inside a run of spaces); the array engine must learn exactly ``learn_merges``'s
merges and, replaying them on held-out text, leave exactly ``ChunkTable``'s number of tokens.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    COURSE_TEXT,
    GPT2_PATTERN,
    ChunkTable,
    chunk_counts,
    learn_merges,
    load_text,
    pretokenize,
)
from bpe_course.arrays import ArrayTrainer, learn_merges_arrays
from bpe_course.batch_encode import RankTable
from bpe_course.engine import Encoder, naive_merges
from bpe_course.large import count_split, file_curve, train_on_files
from bpe_course.parallel import count_chunks_parallel, count_pieces, count_segments
from bpe_course.plots import overfitting_curve
from bpe_course.shards import read_pieces, split_segments
from bpe_course.texts import split_train_heldout
from tests.conftest import ROOT

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)
# ASCII, two-, three- and four-byte characters, and whitespace the pattern treats specially.
ALPHABET = list("ab e'sl1.,") + [" ", "  ", "\n", "\t", "\r\n", "\xa0", "é", "中", "😀", "\u2003"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=60).map("".join)


def write(tmp_path: Path, text: str, name: str = "t.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@SETTINGS
@given(text=texts, piece=st.integers(1, 24), block=st.integers(1, 7))
def test_pieces_rejoin_end_at_chunk_ends_and_count_like_the_whole(
    tmp_path_factory: pytest.TempPathFactory, text: str, piece: int, block: int
) -> None:
    path = write(tmp_path_factory.mktemp("p"), text)
    pieces = list(read_pieces(path, piece_bytes=piece, progress=False, block_bytes=block))
    assert "".join(pieces) == text
    for before, after in zip(pieces, pieces[1:]):
        assert regex.fullmatch(r"\S\s", before[-1] + after[0]), (before, after)
    assert count_pieces(pieces, workers=1) == chunk_counts(text)


def test_a_nominal_boundary_inside_a_character_and_a_word_moves_to_a_chunk_end(
    tmp_path: Path,
) -> None:
    text = "naïve café au lait"  # ï is 2 bytes: bytes 2-3
    path = write(tmp_path, text)
    # A block of 3 bytes ends inside ï; pieces of 4 would end inside "naïve".
    pieces = list(read_pieces(path, piece_bytes=4, progress=False, block_bytes=3))
    assert pieces == ["naïve", " café", " au", " lait"]
    assert count_pieces(pieces, workers=2) == chunk_counts(text)


@pytest.mark.parametrize("piece", [1, 3, 7, 50, 1 << 20])
def test_two_workers_count_exactly_what_one_process_counts(tmp_path: Path, piece: int) -> None:
    text = COURSE_TEXT + " naïve  café\n\n中文 😀\u2003end \xa0x"
    path = write(tmp_path, text)
    whole = chunk_counts(text)
    assert count_chunks_parallel(path, workers=2, piece_bytes=piece, progress=False) == whole
    assert count_chunks_parallel(path, workers=1, piece_bytes=piece, progress=False) == whole


@pytest.mark.parametrize(("shard", "workers"), [(1, 2), (40, 3), (300, 2)])
def test_workers_reading_their_own_shards_count_what_one_process_counts(
    tmp_path: Path, shard: int, workers: int
) -> None:
    # Many shards, across files, each cut where a chunk ends; the workers take them in
    # whatever order they come free and each sends one table back.
    write(tmp_path, COURSE_TEXT + " naïve  café\n\n中文 😀\u2003end \xa0x", "a.txt")
    write(tmp_path, "  second\tfile\n\n", "b.txt")
    write(tmp_path, "third " * 50, "c.txt")
    expected = chunk_counts(load_text(tmp_path))
    counted = count_chunks_parallel(
        tmp_path, workers=workers, piece_bytes=5, progress=False, shard_bytes=shard
    )
    assert counted == expected


def test_a_folder_counts_like_load_text(tmp_path: Path) -> None:
    write(tmp_path, "second file\n", "b.txt")
    write(tmp_path, "first  file é", "a.txt")
    (tmp_path / "notes.md").write_text("not read", encoding="utf-8")
    expected = chunk_counts(load_text(tmp_path))
    assert count_chunks_parallel(tmp_path, workers=2, piece_bytes=2, progress=False) == expected
    assert expected["\n"] == 2 and " file" in expected and "not" not in expected


def test_errors_name_the_file(tmp_path: Path) -> None:
    write(tmp_path, "fine text", "a.txt")
    (tmp_path / "b.txt").write_bytes(b"caf\xe9 latin-1")
    with pytest.raises(ValueError, match=r"b\.txt is not UTF-8 text \(byte 3"):
        count_chunks_parallel(tmp_path, workers=2, progress=False)
    (tmp_path / "b.txt").unlink()
    os.symlink(tmp_path / "gone.txt", tmp_path / "c.txt")
    with pytest.raises(OSError, match=r"cannot read .*c\.txt"):
        train_on_files(tmp_path, 5, workers=1, progress=False)
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        train_on_files(tmp_path / "missing.txt", progress=False)
    with pytest.raises(ValueError, match="workers"):
        count_pieces(["a b"], workers=0)


def test_train_on_files_learns_learn_merges_of_the_whole_text(tmp_path: Path) -> None:
    path = write(tmp_path, COURSE_TEXT)
    expected = learn_merges(chunk_counts(COURSE_TEXT), 300)
    assert train_on_files(path, 300, workers=2, progress=False) == expected
    assert train_on_files([path], 300, workers=1, progress=False) == expected


words = st.dictionaries(
    st.lists(st.sampled_from("aabé "), min_size=1, max_size=8).map("".join),
    st.integers(1, 6),
    max_size=8,
)


@SETTINGS
@given(counts=words, heldout=words, n=st.integers(0, 25))
def test_the_array_engine_learns_and_replays_like_the_python_engine(counts, heldout, n) -> None:
    merges = learn_merges(counts, n)
    assert learn_merges_arrays(counts, n) == merges
    table, replay = ChunkTable(heldout), ArrayTrainer(heldout)
    assert replay.total_tokens == table.total_tokens
    for pair in merges:
        table.apply(pair)
        replay.apply(pair)
        assert replay.total_tokens == table.total_tokens


def test_the_file_curve_splits_like_a_str(tmp_path: Path) -> None:
    text = COURSE_TEXT[:3000]
    path = write(tmp_path, text)
    train, heldout = split_train_heldout(text)
    assert count_split(path, workers=2, progress=False) == (
        chunk_counts(train),
        chunk_counts(heldout),
    )
    curve = file_curve(path, num_merges=None, workers=1, progress=False)
    assert curve == overfitting_curve(text, progress=False)
    assert overfitting_curve(path, progress=False) == curve  # under the 10,000 default


def counts_of_byte_split(files: list[Path], fraction: float) -> tuple[Counter, Counter]:
    """What the overfitting curve of a folder counts, by definition: the files' bytes joined
    by newlines, cut at the first space from ``fraction`` of them on."""
    data = b"\n".join(file.read_bytes() for file in files)
    cut = data.find(b" ", int(len(data) * fraction))
    cut = len(data) if cut < 0 else cut
    return chunk_counts(data[:cut].decode("utf-8")), chunk_counts(data[cut:].decode("utf-8"))


@SETTINGS
@given(
    parts=st.lists(texts, min_size=1, max_size=3),
    fraction=st.sampled_from([0.05, 0.3, 0.5, 2 / 3, 0.95]),
    shard=st.integers(1, 9),
)
def test_the_workers_count_the_two_parts_of_a_folder_as_its_bytes_split(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], fraction: float, shard: int
) -> None:
    # The cut may fall inside any file, inside a multi-byte character's neighbourhood or in
    # the newline between files; shards of a few bytes cut each part many times over.
    folder = tmp_path_factory.mktemp("split")
    files = [write(folder, part, f"{name}.txt") for name, part in zip("abc", parts)]
    parts = split_segments(files, fraction)
    counted = count_segments(parts, workers=1, piece_bytes=3, progress=False, shard_bytes=shard)
    assert tuple(counted) == counts_of_byte_split(files, fraction)


def test_count_split_of_a_folder_in_two_workers_equals_the_byte_split(tmp_path: Path) -> None:
    # Non-ASCII text in three files, the cut inside the second (two thirds of the bytes);
    # small shards so that both workers take several of each part.
    texts_ = [COURSE_TEXT[:900], "Ça, c'est l'été à Zürich — 中文 😀 " * 40, COURSE_TEXT[900:1500]]
    files = [write(tmp_path, text, f"{name}.txt") for name, text in zip("abc", texts_)]
    expected = counts_of_byte_split(files, 2 / 3)
    training, _ = split_segments(files, 2 / 3)
    assert [name for name, _, _ in training] == [str(files[0]), str(files[1])]  # inside b.txt
    assert count_split(tmp_path, workers=2, progress=False) == expected
    parts = split_segments(files, 2 / 3)
    assert tuple(count_segments(parts, workers=2, progress=False, shard_bytes=200)) == expected


def test_a_text_with_no_space_after_the_cut_holds_nothing_out(tmp_path: Path) -> None:
    path = write(tmp_path, "one two three " + "x" * 100)
    assert count_split(path, workers=2, progress=False) == (chunk_counts(path.read_text()), {})
    # However long the text: the message says why (no space there) and what to change.
    with pytest.raises(ValueError, match="first space from 67% of the text on.*train_fraction"):
        file_curve(path, workers=1, progress=False)


@SETTINGS
@given(st.text() | texts)
def test_mostly_ascii_text_splits_exactly_like_the_unicode_pattern(text: str) -> None:
    # pretokenize sends only the stretches around non-ASCII characters to `regex`.
    assert pretokenize(text) == regex.findall(GPT2_PATTERN, text)


tables = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "ab", "ba", "é", "aab"]),
        st.sampled_from(["a", "b", "ab", "b", "é", "bab"]),
    ),
    max_size=12,
)


@SETTINGS
@given(merges=tables, chunks=st.lists(st.text("abé x", max_size=9), max_size=12))
def test_encoding_chunks_together_gives_each_chunk_s_own_tokens(merges, chunks) -> None:
    # Hand-made tables too: repeated pairs, halves no merge made, characters never seen.
    # Both ways RankTable works: rounds in numpy to the end (few = 0), and its last few
    # chunks finished one at a time in Python (a dozen chunks are "few" by default).
    encoder = Encoder(merges)
    expected = [tuple(encoder.encode_chunk(chunk)) for chunk in chunks]
    table = RankTable(merges)
    assert table.encode(chunks) == expected
    table.few = 0
    assert table.encode(chunks) == expected


def test_the_grading_sandbox_refuses_the_engines_at_scale_too() -> None:
    # The judge's sandbox serves stand-ins for the engine's modules; an answer that hands its
    # work to the array engine, train_on_files or naive_merges must be refused like Trainer.
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from autograder.course import ENGINE_MODULES, ENGINE_PARTS\n"
        "from autograder.sandbox.judge_child import refuse_engine, EngineRefusedError\n"
        "refuse_engine(list(ENGINE_MODULES), list(ENGINE_PARTS))\n"
        "from bpe_course import learn_merges_arrays, train_on_files\n"
        "from bpe_course.engine import naive_merges\n"
        "for call in (lambda: learn_merges_arrays({'ab': 2}, 1), "
        "lambda: train_on_files(sys.argv[2], 1, workers=1, progress=False), "
        "lambda: naive_merges({'ab': 2}, 1)):\n"
        "    try:\n        call()\n    except EngineRefusedError:\n        print('refused')\n"
    )
    text = Path(__file__)  # any text file will do: the refusal comes first
    out = subprocess.run(
        [sys.executable, "-c", script, str(ROOT), str(text)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "refused\n" * 3


@SETTINGS
@given(counts=words, n=st.integers(0, 25))
def test_the_naive_loop_lesson_4_times_learns_the_same_merges(counts, n) -> None:
    assert naive_merges(counts, n) == learn_merges(counts, n)


FORK = "fork" in multiprocessing.get_all_start_methods()
# Pieces counted so far by the workers, seen by this process (fork shares it with them).
COUNTED = multiprocessing.get_context("fork").Value("i", 0) if FORK else None


def _count_and_tell(piece: str) -> Counter[str]:
    counts = Counter(pretokenize(piece))
    with COUNTED.get_lock():
        COUNTED.value += 1
    return counts


def _die(piece: str) -> Counter[str]:
    os._exit(3)


@pytest.mark.skipif(not FORK, reason="the workers must share this process's memory")
def test_the_pool_reads_pieces_only_a_few_ahead_of_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bpe_course.parallel

    monkeypatch.setattr(bpe_course.parallel, "_count", _count_and_tell)
    COUNTED.value = 0
    ahead = []

    def pieces():
        for number in range(300):
            ahead.append(number - COUNTED.value)
            yield f" piece{number} of text"

    assert count_pieces(pieces(), workers=2)[" text"] == 300
    # Two waiting per worker and one in each worker's hands; a pool's map reads them all.
    assert max(ahead) <= 3 * 2 + 1, max(ahead)


@pytest.mark.skipif(not FORK, reason="the workers must see the patched function")
def test_a_worker_that_fails_or_dies_is_one_plain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError, match="a counting worker failed: TypeError: pretokenize"):
        count_pieces(["fine", b"bytes"], workers=2)  # type: ignore[list-item]
    import bpe_course.parallel

    monkeypatch.setattr(bpe_course.parallel, "_count", _die)
    with pytest.raises(RuntimeError, match="a counting worker died"):
        count_pieces(["a b", "c d"], workers=2)


larger_tables = st.dictionaries(
    st.lists(st.sampled_from("aab ba"), min_size=1, max_size=12).map("".join),
    st.integers(1, 40),
    max_size=40,
)


@SETTINGS
@given(counts=larger_tables, n=st.integers(0, 60))
def test_the_array_engine_files_many_positions_a_merge_like_the_python_engine(counts, n) -> None:
    # Dozens of chunks over three letters: each merge files a new pair at many positions
    # at once, and runs such as "aaaa" join left to right, as scanning does.
    assert learn_merges_arrays(counts, n) == learn_merges(counts, n)


def test_the_array_engine_runs_to_the_end_through_every_lowered_floor() -> None:
    # The heap holds only pairs counted at least 1/64 as often as the top one; running a
    # text to its last merge empties it several times, and each refill must lose no pair.
    # Counts scaled up keep the merges (ties included) and make the floors many and large.
    counts = {chunk: 4096 * n for chunk, n in chunk_counts(COURSE_TEXT).items()}
    trainer = ArrayTrainer(counts)
    floors = set()
    while trainer.step() is not None:
        floors.add(trainer._floor)
    assert len(floors) >= 2  # refilled at least once
    assert trainer.merges == learn_merges(counts, len(trainer.merges) + 1)


def test_an_alphabet_past_65536_characters_trains_alike() -> None:
    # Past 2**16 characters a pair no longer packs into 32 bits; the engine sorts otherwise.
    counts = {chr(0x4E00 + i % 300) + chr(0x20000 + i): 1 + i % 7 for i in range(70_000)}
    counts |= {"ab" * 3: 50, "ba": 40}
    assert learn_merges_arrays(counts, 30) == learn_merges(counts, 30)


def test_taking_a_table_empties_it_and_learns_the_same() -> None:
    counts = chunk_counts(COURSE_TEXT + " naïve 中文 😀")
    counts[""] = 3  # an empty chunk has no symbol: left out either way
    expected = learn_merges_arrays(counts, 200)
    taken = Counter(counts)
    trainer = ArrayTrainer(taken, take=True)
    assert not taken
    while len(trainer.merges) < 200 and trainer.step() is not None:
        pass
    assert trainer.merges == expected == learn_merges(counts, 200)


def test_a_floor_on_chunk_counts_trains_on_the_chunks_above_it(tmp_path: Path) -> None:
    path = write(tmp_path, COURSE_TEXT)
    frequent = {chunk: n for chunk, n in chunk_counts(COURSE_TEXT).items() if n >= 3}
    floored = train_on_files(path, 100, workers=1, progress=False, min_count=3)
    assert floored == learn_merges(frequent, 100)
    assert floored != train_on_files(path, 100, workers=1, progress=False)
    with pytest.raises(ValueError, match="min_count must be a whole number of 1 or more"):
        train_on_files(path, 5, progress=False, min_count=0)
