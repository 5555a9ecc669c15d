"""The same merges under any PYTHONHASHSEED.

String hashing is salted per process, so iterating over a set or dict of pairs can visit
them in a different order in each run. A trainer whose tie-break leaked that order would
learn a different vocabulary on another machine, and a case list built by walking a set
would grade two students on different inputs. Each seed runs in its own interpreter, which
reports the trainers' merges and every exercise's grading cases
(``autograder.hidden_tests.cases``, used read-only) for comparison.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The exercises and case groups of the grading contract (autograder.hidden_tests.cases).
EXERCISES = ("pair_counts", "merge_pair", "train_bpe", "encode_bpe", "merge_and_update")
GROUPS = ("core", "random")

PLAIN = """
import json


def plain(value):
    # Types are kept, as is the order of lists, tuples and dicts; a set has no order of its
    # own, so its members are compared sorted.
    if isinstance(value, dict):
        return ["dict", [[plain(k), plain(v)] for k, v in value.items()]]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted(json.dumps(plain(v)) for v in value)]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [plain(v) for v in value]]
    return [type(value).__name__, value]
"""

SCRIPT = """
from autograder.hidden_tests.cases import cases
from bpe_course import COURSE_TEXT, chunk_counts, learn_merges
from solutions import train_bpe, train_bpe_fast
from solutions.hf_ties import train_bpe_hf_ties

words = chunk_counts(COURSE_TEXT)
ties = {word: 1 for word in ["abab", "baba", "cab", "abc", "bca", "aaaa", "a", "cc"]}
print(json.dumps({
    "fast": train_bpe_fast(words, 300),
    "naive": train_bpe(words, 40),
    "engine": learn_merges(words, 300),
    "hf_rule": train_bpe_hf_ties(words, 300),
    "ties": [train_bpe(ties, 12), train_bpe_fast(ties, 12), learn_merges(ties, 12)],
    "hash_of_pair": hash(("e", "a")),
    "cases": {
        f"{name}/{group}": plain(cases(name, group))
        for name in EXERCISES for group in GROUPS
    },
}))
"""


def merges_under(seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    script = f"EXERCISES = {EXERCISES!r}\nGROUPS = {GROUPS!r}\n" + PLAIN + SCRIPT
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    return {seed: merges_under(seed) for seed in ("0", "1", "4242")}


def test_the_seeds_really_differ(runs) -> None:
    assert len({run["hash_of_pair"] for run in runs.values()}) == 3


def test_same_merges_under_three_hash_seeds(runs) -> None:
    merges = [{k: v for k, v in run.items() if k != "hash_of_pair"} for run in runs.values()]
    assert merges[0] == merges[1] == merges[2]


def test_grading_cases_are_the_same_under_three_hash_seeds(runs) -> None:
    first = runs["0"]["cases"]
    assert sorted(first) == sorted(f"{name}/{group}" for name in EXERCISES for group in GROUPS)
    for key, (kind, members) in first.items():
        assert kind == "list" and members, f"{key} has no cases"
    # This process has a hash seed of its own: a fourth run, compared in full.
    from autograder.hidden_tests.cases import cases

    namespace: dict = {}
    exec(PLAIN, namespace)
    here = {
        f"{name}/{group}": namespace["plain"](cases(name, group))
        for name in EXERCISES
        for group in GROUPS
    }
    assert json.loads(json.dumps(here)) == first
    for seed in ("1", "4242"):
        for key, value in first.items():
            assert runs[seed]["cases"][key] == value, f"{key} differs under PYTHONHASHSEED={seed}"


def test_every_trainer_agrees_within_a_run(runs) -> None:
    run = runs["0"]
    assert run["fast"] == run["engine"]
    assert run["naive"] == run["fast"][:40]
    assert run["ties"][0] == run["ties"][1] == run["ties"][2]
