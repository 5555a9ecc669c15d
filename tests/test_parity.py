"""Our BPE next to the real libraries: same tokens as Hugging Face and tiktoken, and Hugging
Face's own trainer learning our merges up to the first tie it breaks differently.

Everything is built offline from our merge tables (``bpe_course.real_tokenizers``). The
tables are byte-level in effect: the texts are ASCII, so each character is one byte, and the
alphabet given to Hugging Face is all 128 ASCII characters.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

from bpe_course import (
    COURSE_TEXT,
    Encoder,
    Trainer,
    chunk_counts,
    shakespeare_text,
    split_train_heldout,
)
from bpe_course.real_tokenizers import (
    hf_tokenizer,
    hf_tokens,
    hf_train,
    tiktoken_encoding,
    tiktoken_ranks,
)
from solutions import train_bpe_fast
from solutions.hf_ties import train_bpe_hf_ties

ASCII = [chr(code) for code in range(128)]
NUM_MERGES = 2000


@pytest.fixture(scope="module")
def shakespeare() -> tuple[str, str]:
    text = shakespeare_text(max_bytes=1_000_000)
    assert text.isascii()
    return split_train_heldout(text, train_fraction=0.8)


@pytest.fixture(scope="module")
def shakespeare_counts(shakespeare):
    return chunk_counts(shakespeare[0])


@pytest.fixture(scope="module")
def shakespeare_merges(shakespeare_counts) -> list[tuple[str, str]]:
    return train_bpe_fast(shakespeare_counts, NUM_MERGES)


@pytest.fixture(scope="module")
def course_table() -> tuple[list[tuple[str, str]], str]:
    """Every merge the course text's training part allows: long, overfitted tokens."""
    train, heldout = split_train_heldout(COURSE_TEXT)
    return train_bpe_fast(chunk_counts(train), 10_000), heldout


def tiktoken_tokens(encoding: tiktoken.Encoding, text: str) -> list[str]:
    return [encoding.decode_single_token_bytes(t).decode() for t in encoding.encode_ordinary(text)]


def test_hf_tokenizer_encodes_held_out_shakespeare_like_us(shakespeare, shakespeare_merges):
    heldout = shakespeare[1]
    ours = Encoder(shakespeare_merges).encode(heldout)
    tokenizer = hf_tokenizer(shakespeare_merges, ASCII)
    assert hf_tokens(tokenizer, heldout) == ours
    assert tokenizer.decode(tokenizer.encode(heldout).ids) == heldout


def test_tiktoken_encodes_held_out_shakespeare_like_us(shakespeare, shakespeare_merges):
    heldout = shakespeare[1]
    ours = Encoder(shakespeare_merges).encode(heldout)
    encoding = tiktoken_encoding(shakespeare_merges)
    assert tiktoken_tokens(encoding, heldout) == ours
    ranks = tiktoken_ranks(shakespeare_merges)
    assert encoding.encode_ordinary(heldout) == [ranks[token.encode()] for token in ours]
    assert encoding.decode(encoding.encode_ordinary(heldout)) == heldout


def test_both_libraries_agree_on_an_overfitted_table(course_table):
    merges, heldout = course_table
    ours = Encoder(merges).encode(heldout)
    assert len(merges) > 400
    assert hf_tokens(hf_tokenizer(merges, ASCII), heldout) == ours
    assert tiktoken_tokens(tiktoken_encoding(merges), heldout) == ours


def test_hf_trainer_learns_our_merges_until_a_tie(shakespeare_counts, shakespeare_merges):
    theirs = hf_train(shakespeare_counts, NUM_MERGES)
    assert len(theirs) == NUM_MERGES
    first = next(i for i, (a, b) in enumerate(zip(shakespeare_merges, theirs)) if a != b)
    assert first > 20  # the frequent pairs come first and have no ties
    assert theirs[:first] == shakespeare_merges[:first]
    trainer = Trainer(shakespeare_counts)
    for _ in range(first):
        trainer.step()
    ours_pair, their_pair = shakespeare_merges[first], theirs[first]
    assert trainer.pair_counts[ours_pair] == trainer.pair_counts[their_pair]
    assert ours_pair < their_pair  # we take the smaller pair of strings


def test_hf_trainer_is_our_trainer_with_ties_broken_by_token_id(shakespeare_counts):
    # So every difference between its merges and ours comes from a tie.
    assert hf_train(shakespeare_counts, NUM_MERGES) == train_bpe_hf_ties(
        shakespeare_counts, NUM_MERGES
    )


def test_hf_trainer_matches_the_tie_rule_on_a_tie_heavy_text():
    counts = chunk_counts(COURSE_TEXT)
    theirs = hf_train(counts, 10_000)
    assert theirs == train_bpe_hf_ties(counts, 10_000)
    assert theirs != train_bpe_fast(counts, 10_000)


ROOT = Path(__file__).resolve().parent.parent

# Builds both libraries from a merge table and uses them: the tokens of a text by each, and
# Hugging Face's trainer on the text's chunks. Input and output are JSON on stdin and stdout.
OFFLINE_WORK = """
import json, sys
from bpe_course.real_tokenizers import hf_tokenizer, hf_tokens, hf_train, tiktoken_encoding

job = json.load(sys.stdin)
merges, text = [tuple(pair) for pair in job["merges"]], job["text"]
encoding = tiktoken_encoding(merges)
ids = encoding.encode_ordinary(text)
json.dump({
    "tiktoken": [encoding.decode_single_token_bytes(i).decode() for i in ids],
    "hf": hf_tokens(hf_tokenizer(merges, [chr(code) for code in range(128)]), text),
    "hf_train": hf_train(job["counts"], 50),
}, sys.stdout)
"""

NO_NETWORK = (
    ("unshare", "--net"),
    ("bwrap", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
)
PROBE = (
    "import errno, socket\n"  # 192.0.2.1 is reserved for documentation: nobody answers
    "try:\n    socket.create_connection(('192.0.2.1', 443), timeout=5)\n"
    "except OSError as error:\n    raise SystemExit(0 if error.errno == errno.ENETUNREACH else 1)\n"
    "raise SystemExit(1)\n"
)


def without_network(scratch: Path) -> list[str] | None:
    """A command prefix that runs a program in a network namespace with no network at all
    (not even a route), checked by trying to connect; None if this machine cannot make one."""
    for prefix in NO_NETWORK:
        if shutil.which(prefix[0]) is None:
            continue
        command = list(prefix)
        if prefix[0] == "bwrap":  # a fresh /tmp, with the scratch folder inside it
            command += ["--tmpfs", "/tmp", "--bind", str(scratch), str(scratch)]
        try:
            probe = subprocess.run(
                [*command, sys.executable, "-c", PROBE], capture_output=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return command
    return None


def offline_env(cache: Path) -> dict[str, str]:
    """This environment without offline switches or proxies, every cache in ``cache``."""
    dropped = ("HF_", "TIKTOKEN_", "DATA_GYM_", "TRANSFORMERS_", "XDG_CACHE_HOME")
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(dropped) and "proxy" not in name.lower()
    }
    for name in ("HF_HOME", "HF_HUB_CACHE", "TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        env[name] = str(cache / name.lower())
    return env | {"XDG_CACHE_HOME": str(cache), "HOME": str(cache), "PYTHONPATH": str(ROOT)}


def test_building_and_using_them_never_touches_the_network(tmp_path, course_table):
    # Python's sockets are not the only way out: the Rust libraries bring their own HTTP
    # clients. So the work runs in a network namespace where no route leads anywhere, with
    # offline switches unset and empty caches, and must give exactly our tokens there.
    cache = tmp_path / "cache"
    cache.mkdir()
    prefix = without_network(tmp_path)
    if prefix is None:
        pytest.skip(
            "neither `unshare --net` nor `bwrap --unshare-net` can make a network namespace "
            "on this machine, so a download by any route cannot be ruled out"
        )
    merges, heldout = course_table
    counts = chunk_counts(heldout)
    job = {"merges": merges, "text": heldout, "counts": counts}
    run = subprocess.run(
        [*prefix, sys.executable, "-c", OFFLINE_WORK],
        input=json.dumps(job),
        env=offline_env(cache),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"the work failed without a network:\n{run.stderr}"
    done = json.loads(run.stdout)
    ours = Encoder(merges).encode(heldout)
    assert done["tiktoken"] == ours
    assert done["hf"] == ours
    assert [tuple(pair) for pair in done["hf_train"]] == train_bpe_hf_ties(counts, 50)
    assert sorted(cache.rglob("*")) == [], "something was written to a download cache"


def test_tiktoken_ranks_tokens_not_pairs():
    # The documented limit of the tiktoken bridge: it joins "a" + "bc" because "abc" has a
    # rank, although the table only ever joins (a, bc) after (a, b) has taken the b.
    merges = [("a", "b"), ("b", "c"), ("a", "bc")]
    assert Encoder(merges).encode("abc") == ["ab", "c"]
    assert tiktoken_tokens(tiktoken_encoding(merges), "abc") == ["abc"]
