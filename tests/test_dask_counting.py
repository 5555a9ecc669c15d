"""Counting on a Dask cluster: shards cut where chunks end, and the merges of one machine.

The shards of ``plan_shards`` read back must be exactly the text ``read_pieces`` reads, cut
wherever the nominal size falls (inside a word, a character, a run of spaces, across files);
and ``train_on_files`` with a Dask client of a local cluster (two worker processes, Dask's
folders in a temporary one, closed at the end) must learn exactly one machine's merges.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import COURSE_TEXT, chunk_counts, learn_merges, load_text
from bpe_course.dask_counting import count_on_dask, count_shard, dask_client
from bpe_course.large import train_on_files
from bpe_course.shards import plan_shards, read_segments, text_files

ALPHABET = list("ab e'sl1.,") + [" ", "  ", "\n", "\t", "\xa0", "é", "中", "😀", "\u2003"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(parts=st.lists(texts, min_size=1, max_size=3), shard=st.integers(1, 30))
def test_shards_read_back_as_the_whole_text_and_count_like_it(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], shard: int
) -> None:
    folder = tmp_path_factory.mktemp("s")
    for number, part in enumerate(parts):
        (folder / f"{number}.txt").write_bytes(part.encode("utf-8"))
    whole = "\n".join(parts)
    shards = plan_shards(text_files(folder), shard)
    read = ["".join(read_segments(segments, piece_bytes=3)) for segments in shards]
    assert "".join(read) == whole
    for before, after in zip(read, read[1:]):  # a shard ends only where a chunk ends
        assert regex.fullmatch(r"\S\s", before[-1] + after[0]), (before, after)
    total = sum((count_shard(segments) for segments in shards), start=chunk_counts(""))
    assert total == chunk_counts(whole)


def test_a_file_that_is_not_utf8_is_named_by_the_worker(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"fine text " * 10 + b"caf\xe9")
    shards = plan_shards(text_files(tmp_path), 1 << 20)
    with pytest.raises(ValueError, match=r"a\.txt is not UTF-8 text \(byte 103"):
        count_shard(shards[0])


@pytest.fixture(scope="module")
def client():
    # Two worker processes on this machine, Dask's folders in a temporary one, all closed
    # at the end: what make train SCHEDULER=local makes.
    with dask_client("local", 2) as client:
        yield client


def test_a_dask_cluster_learns_one_machine_s_merges(tmp_path: Path, client) -> None:
    (tmp_path / "a.txt").write_text(COURSE_TEXT, encoding="utf-8")
    (tmp_path / "b.txt").write_text("naïve  café\n\n中文 😀\u2003end " * 50, encoding="utf-8")
    expected = learn_merges(chunk_counts(load_text(tmp_path)), 300)
    assert train_on_files(tmp_path, 300, workers=1, progress=False) == expected
    assert train_on_files(tmp_path, 300, progress=False, client=client) == expected
    # Small shards, so that the text is spread over many tasks and both workers.
    counts = count_on_dask(tmp_path, client, progress=False, shard_bytes=997)
    assert counts == chunk_counts(load_text(tmp_path))


def test_a_worker_s_error_names_the_file(tmp_path: Path, client) -> None:
    (tmp_path / "a.txt").write_bytes(b"caf\xe9 latin-1")
    with pytest.raises(ValueError, match=r"a\.txt is not UTF-8"):
        train_on_files(tmp_path, 5, progress=False, client=client)


def test_the_local_cluster_lets_no_other_process_in(client) -> None:
    """On a shared machine every account reaches 127.0.0.1, and a Dask client runs any code on
    the workers: a client without this cluster's credentials, plain or with TLS of its own,
    is turned away (each in a process of its own, as another account's would be)."""
    import subprocess
    import sys

    address = client.scheduler.address
    assert address.startswith("tls://") and client.security.require_encryption
    stranger = (
        "import sys\nfrom distributed import Client\nfrom distributed.security import Security\n"
        "how = sys.argv[2]\n"
        "address = sys.argv[1] if how == 'tls' else sys.argv[1].replace('tls://', 'tcp://')\n"
        "security = Security.temporary() if how == 'tls' else None\n"
        "try:\n    Client(address, timeout=10, security=security).close()\n"
        "except Exception as error:\n    print('refused', type(error).__name__); sys.exit(3)\n"
        "print('connected')\n"
    )
    for how in ("plain", "tls"):
        done = subprocess.run(
            [sys.executable, "-c", stranger, address, how],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 3 and done.stdout.startswith("refused"), (how, done.stdout)


def test_dask_is_imported_only_when_a_client_is_given() -> None:
    script = (
        "import sys, bpe_course, bpe_course.large\n"
        "print(sorted({'dask', 'distributed'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
