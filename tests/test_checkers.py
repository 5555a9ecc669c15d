"""The hidden tests' checkers, in process: every catalogued wrong answer fails with its mistake
named, every correct one passes, and the seam (cases, run_case, judge) keeps its promises."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections import Counter, OrderedDict, defaultdict

import pytest

import solutions
from autograder.course import EXERCISES
from autograder.hidden_tests.cases import GROUPS, cases
from autograder.hidden_tests.judge import check, judge
from bpe_course.examples import EXAMPLES, check_examples
from bpe_course.feedback import named_mistake
from bpe_course.mistakes import MISTAKES, mistake_names
from bpe_course.outcomes import Outcome, Unplain, dumps, loads, run, run_case, same, to_plain
from course_fixtures.catalogue import CORRECT, MORE_WRONG, WRONG
from tests.conftest import ROOT


def load(source: str, name: str):
    """The function ``name`` defined by an answer's source, as a notebook would define it."""
    namespace: dict = {}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)  # our own catalogue's code
    return namespace[name]


def failures(name: str, func, groups: tuple[str, ...] = GROUPS) -> list[str]:
    messages = []
    for group in groups:
        try:
            check(name, group, func)
        except AssertionError as error:
            messages.append(str(error))
    return messages


@pytest.mark.parametrize(
    ("name", "mistake"), [(name, mistake) for name in WRONG for mistake in WRONG[name]]
)
def test_each_wrong_answer_fails_with_its_mistake_named(name: str, mistake: str) -> None:
    messages = failures(name, load(WRONG[name][mistake], name))
    assert messages, f"the wrong {name} ({mistake}) passed every hidden test"
    assert any(f"Likely mistake: {mistake}." in m for m in messages), "\n\n".join(messages)


@pytest.mark.parametrize(
    ("name", "label"), [(name, label) for name in CORRECT for label in CORRECT[name]]
)
def test_each_correct_answer_passes(name: str, label: str) -> None:
    assert failures(name, load(CORRECT[name][label], name)) == []


def test_the_catalogue_covers_every_mistake_the_issue_names() -> None:
    wanted = {
        "leftmost pair instead of lowest rank",
        "right-to-left merges",
        "overlapping merges",
        "string replacement across symbol boundaries",
        "ties broken by the largest pair",
        "ties broken by the concatenated string",
        "ties broken by first appearance",
        "unweighted counts",
        "a pair counted once per word",
        "stopping when counts fall to 1",
        "one merge too few",
        "wrong return types",
        "changing the caller's input",
        "iterating over all words",
        "zero entries left in stats",
        "where not updated",
        "stale indices reported as changed",
    }
    catalogued = {mistake for name in WRONG for mistake in WRONG[name]}
    recognised = {mistake for names in mistake_names().values() for mistake in names}
    assert wanted <= catalogued
    assert catalogued <= recognised
    for name in WRONG:
        assert set(WRONG[name]) <= set(mistake_names()[name]), name


def test_the_reference_passes_and_each_variant_is_caught() -> None:
    for name in EXERCISES:
        assert failures(name, getattr(solutions, name)) == []
        for mistake in MISTAKES[name]:
            for variant in mistake.variants:
                messages = failures(name, variant)
                named = f"Likely mistake: {mistake.name}."
                assert any(named in m for m in messages), (name, mistake.name, messages)


def test_a_failure_message_shows_input_expected_got_and_mistake() -> None:
    wrong = load(WRONG["encode_bpe"]["leftmost pair instead of lowest rank"], "encode_bpe")
    outcomes = [run_case("encode_bpe", wrong, args) for args in cases("encode_bpe", "core")]
    messages = judge("encode_bpe", "core", outcomes)
    (message,) = [m for m in messages if "encode_bpe('steat'" in m]
    assert "encode_bpe('steat', [('e', 'a'), ('ea', 't'), ('t', 'ea'), ('s', 'eat')" in message
    assert "expected: ['s', 't', 'eat']" in message
    assert "got:      ['s', 'tea', 't']" in message
    assert "Likely mistake: leftmost pair instead of lowest rank." in message


def test_messages_put_the_smallest_failing_input_first() -> None:
    wrong = load(WRONG["merge_pair"]["right-to-left merges"], "merge_pair")
    args_list = cases("merge_pair", "core")
    outcomes = [run_case("merge_pair", wrong, args) for args in args_list]
    messages = judge("merge_pair", "core", outcomes)
    # One message per input the wrong answer gets wrong, counted here against the reference.
    wrong_on = [a for a in args_list if wrong(*copy.deepcopy(a)) != solutions.merge_pair(*a)]
    assert len(messages) == len(wrong_on) >= 2
    shown = [m.splitlines()[1] for m in messages]
    assert [len(s) for s in shown] == sorted(len(s) for s in shown)
    assert messages[0].startswith(f"merge_pair is wrong on {len(messages)} of {len(args_list)}")


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class SneakyStr(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class SneakyTuple(tuple):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = tuple.__hash__


class SneakyDict(dict):
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("pair_counts", lambda words: AlwaysEqual()),
        ("pair_counts", lambda words: SneakyDict()),
        ("merge_pair", lambda symbols, pair: SneakyTuple()),
        ("encode_bpe", lambda word, merges: [SneakyStr("x")]),
        ("train_bpe", lambda word_counts, num_merges: [SneakyTuple()]),
        ("merge_and_update", lambda *args: AlwaysEqual()),
    ],
)
def test_objects_that_claim_equality_fail(name: str, answer) -> None:
    for group in GROUPS:
        with pytest.raises(AssertionError, match="wrong return types"):
            check(name, group, answer)


def test_the_wrong_types_advice_names_the_exercises_own_type() -> None:
    def as_list(symbols, pair):  # right values, in a list where a tuple is asked for
        return list(solutions.merge_pair(symbols, pair))

    with pytest.raises(AssertionError) as raised:
        check("merge_pair", "core", as_list)
    message = str(raised.value)
    assert "wrong return types" in message and "merge_pair returns a tuple of str" in message
    assert "dict" not in message  # not every exercise's return type at once


def test_exact_types_are_required() -> None:
    assert not same({("a", "b"): 1}, {("a", "b"): True})
    assert not same({("a", "b"): 1}, {("a", "b"): 1.0})
    assert not same(["a"], ("a",))
    assert same({("a", "b"): {1, 2}}, {("a", "b"): {2, 1}})
    assert to_plain(SneakyStr("a")) == Unplain("SneakyStr")
    assert to_plain(SneakyDict({("a", "b"): 2})) == Unplain("SneakyDict")


@pytest.mark.parametrize("kind", [Counter, OrderedDict, lambda d: defaultdict(int, d)])
def test_the_standard_dict_types_are_read_as_the_dict_they_hold(kind) -> None:
    held = kind({("a", "b"): 2, ("b", "c"): 1})
    plain = to_plain(held)
    assert type(plain) is dict and same(plain, {("a", "b"): 2, ("b", "c"): 1})
    assert same(to_plain([held]), [{("a", "b"): 2, ("b", "c"): 1}])


def test_a_patched_counter_class_is_read_through_dict_itself(monkeypatch) -> None:
    # An answer may patch Counter itself (its methods are Python functions); none is called.
    def lie(self, *args):
        raise AssertionError("the checker called a method of the answer's Counter")

    for method in ("items", "keys", "values", "__iter__", "__getitem__", "__eq__", "copy"):
        monkeypatch.setattr(Counter, method, lie)
    assert same(to_plain(Counter({("a", "b"): 2})), {("a", "b"): 2})


class CountsLikeCounter(Counter):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None


def test_a_counter_answer_scores_like_a_dict_and_a_subclass_does_not() -> None:
    assert failures("pair_counts", load(CORRECT["pair_counts"]["Counter"], "pair_counts")) == []

    def sneaky(words):
        return CountsLikeCounter()

    for group in GROUPS:
        with pytest.raises(AssertionError, match="wrong return types"):
            check("pair_counts", group, sneaky)


def test_plain_data_survives_json() -> None:
    value = {("a", "b"): [1, (2, "x")], "s": {frozenset({1}), 3}, "u": Unplain("Foo"), None: 1.5}
    assert same(loads(dumps(value)), value)


def test_run_case_protects_the_case_data() -> None:
    args = cases("train_bpe", "core")[0]
    pristine = copy.deepcopy(args)

    def vandal(word_counts, num_merges):
        word_counts.clear()
        return []

    outcome = run_case("train_bpe", vandal, args)
    assert args == pristine
    assert outcome.after == ({}, args[1])


def test_merge_and_update_cannot_loop_over_words() -> None:
    args = cases("merge_and_update", "core")[0]

    def looks_at_everything(words, counts, stats, where, pair):
        return [i for i in range(len(words)) if words[i]]

    outcome = run_case("merge_and_update", looks_at_everything, args)
    assert outcome.error is not None and outcome.error.startswith("WordsLoopError")


def test_judge_never_runs_what_it_is_given() -> None:
    # Outcomes are plain data: a callable smuggled into one is just a wrong value.
    calls = []
    bad = Outcome(value=lambda: calls.append(1), error=None, after=())
    with pytest.raises(TypeError):
        judge("merge_pair", "core", [bad] * len(cases("merge_pair", "core")))
    assert calls == []
    with pytest.raises(ValueError, match="cases but"):
        judge("merge_pair", "core", [])


def test_cases_are_plain_deterministic_and_hashseed_free() -> None:
    script = (
        "from autograder.hidden_tests.cases import cases, EXERCISES;"
        "from bpe_course.outcomes import dumps;"
        "print(dumps([cases(n, g) for n in EXERCISES for g in ('core', 'random')]))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(runs) == 1
    for name in EXERCISES:
        for group in GROUPS:
            for args in cases(name, group):
                assert same(to_plain(args), args), (name, group, args)


def test_unknown_names_are_explained() -> None:
    with pytest.raises(ValueError, match="unknown exercise"):
        cases("train", "core")
    with pytest.raises(ValueError, match="unknown group"):
        cases("train_bpe", "hidden")


def test_an_unwritten_stub_gets_one_plain_message() -> None:
    def stub(*args):
        raise NotImplementedError()

    with pytest.raises(AssertionError) as raised:
        check("train_bpe", "core", stub)
    assert str(raised.value).startswith("train_bpe is not written yet")


def test_the_first_line_names_the_likely_mistake() -> None:
    wrong = load(WRONG["train_bpe"]["ties broken by the largest pair"], "train_bpe")
    with pytest.raises(AssertionError) as raised:
        check("train_bpe", "core", wrong)
    first = str(raised.value).splitlines()[0]
    assert first.startswith("train_bpe is wrong on ")
    assert "(likely mistake: ties broken by the largest pair)" in first


def test_the_same_error_on_every_input_is_named_with_what_to_do() -> None:
    def leans_on_a_lesson_variable(words):
        return {pair: STEP for pair in words}  # noqa: F821 - the point of the test

    def bad_import(symbols, pair):
        import no_such_module  # noqa: F401

    with pytest.raises(AssertionError) as raised:
        check("pair_counts", "random", leans_on_a_lesson_variable)
    message = str(raised.value)
    assert message.startswith(
        "pair_counts raised NameError: name 'STEP' is not defined on every input; "
    )
    assert "Define it (or import it)" in message and "wrong on" not in message
    with pytest.raises(AssertionError, match="raised ModuleNotFoundError: .* on every input; "):
        check("merge_pair", "core", bad_import)


def test_the_hidden_words_refuse_len_like_the_visible_ones() -> None:
    args = cases("merge_and_update", "core")[0]

    def counts_the_words(words, counts, stats, where, pair):
        return list(range(len(words)))

    outcome = run_case("merge_and_update", counts_the_words, args)
    assert outcome.error is not None and outcome.error.startswith("WordsLoopError")
    assert "len(words)" in outcome.error
    with pytest.raises(AssertionError, match="iterating over all words"):
        check("merge_and_update", "core", counts_the_words)


def test_merge_and_update_examples_replay_the_visible_cell() -> None:
    examples = cases("merge_and_update", "examples")
    pairs = [args[4] for args in examples]
    assert pairs == [("e", "a"), ("ea", "t"), ("z", "z"), ("a", "b")]
    assert 0 in examples[1][3][("ea", "t")]  # the stale index the cell adds
    assert list(examples[3][3][("a", "b")]) == [1, 10, 3]  # a set iterated out of order
    results = [run_case("merge_and_update", solutions.merge_and_update, a) for a in examples]
    # What the visible asserts expect.
    assert [r.value for r in results] == [[0, 1, 2, 3, 4], [2, 3, 4], [], [1, 3, 10]]
    assert judge("merge_and_update", "examples", results) == []
    # The other exercises' examples are the visible cells' own (bpe_course.examples).
    assert same(cases("train_bpe", "examples"), [args for args, _ in EXAMPLES["train_bpe"]])


def test_judge_reuses_given_expected_outcomes() -> None:
    wrong = load(WRONG["merge_pair"]["overlapping merges"], "merge_pair")
    all_args = cases("merge_pair", "core")
    outcomes = [run_case("merge_pair", wrong, args) for args in all_args]
    expected = [run_case("merge_pair", solutions.merge_pair, args) for args in all_args]
    assert judge("merge_pair", "core", outcomes, expected) == judge("merge_pair", "core", outcomes)
    with pytest.raises(ValueError, match="expected"):
        judge("merge_pair", "core", outcomes, expected[:1])


def merge_and_update_message(mistake: str) -> list[str]:
    wrong = load(WRONG["merge_and_update"][mistake], "merge_and_update")
    with pytest.raises(AssertionError) as raised:
        check("merge_and_update", "core", wrong)
    return str(raised.value).splitlines()


def test_merge_and_update_names_unsubtracted_neighbours_and_lists_only_differing_pairs() -> None:
    lines = merge_and_update_message("old neighbour pairs not subtracted")
    assert lines[0] == (
        "merge_and_update is wrong on 8 of 13 test inputs "
        "(likely mistake: old neighbour pairs not subtracted). The smallest:"
    )
    assert lines[1:8] == [
        "    merge_and_update(words, counts, stats, where, pair) with",
        "    words = [['a', 'b', 'a', 'b'], ['b', 'a']]",
        "    counts = [1, 2]",
        "    stats = {('a', 'b'): 2, ('b', 'a'): 3}",
        "    where = {('a', 'b'): {0}, ('b', 'a'): {0, 1}}",
        "    pair = ('a', 'b')",
        "stats afterwards: 1 pair differs:",
    ]
    # (ab, ab) is right, so only (b, a) is listed; neither whole table is printed.
    assert lines[8] == "    ('b', 'a'): should be 2, is 3"
    assert lines[9].startswith("Likely mistake: old neighbour pairs not subtracted. ")
    assert len(lines) == 10


def test_merge_and_update_lists_the_words_where_misses() -> None:
    lines = merge_and_update_message("where not updated")
    assert lines[7:10] == [
        "where afterwards misses words for 2 pairs:",
        "    where[('aa', 'a')] lacks word 1, which holds the pair now",
        "    where[('aa', 'aa')] lacks word 0, which holds the pair now",
    ]
    assert lines[10].startswith("Likely mistake: where not updated. ")


def test_merge_and_update_must_sort_indices_a_set_iterates_out_of_order() -> None:
    # The student's find: a set of small ints iterates in hash-bucket order, not sorted.
    assert list({10, 3}) == [10, 3] and list({1, 8}) == [8, 1]
    lines = merge_and_update_message("indices not in increasing order")
    assert lines[0].startswith("merge_and_update is wrong on 2 of 13 test inputs ")
    assert "expected: [3, 10]" in lines and "got:      [10, 3]" in lines
    assert lines[-1].startswith("Likely mistake: indices not in increasing order. ")


# ---- the catalogue's figures: lose points, never misnamed, mostly named ---------------------

ALL_GROUPS = (*GROUPS, "examples")


def every_wrong_answer() -> list[tuple[str, str, str | None, str]]:
    """(exercise, label, the mistake it makes or None, source) for every catalogued wrong."""
    found = [(n, m, m, src) for n in WRONG for m, src in WRONG[n].items()]
    found += [(n, label, m, src) for n in MORE_WRONG for label, (m, src) in MORE_WRONG[n].items()]
    return found


def verdicts(name: str, source: str) -> dict[str, tuple[bool, str | None]]:
    """Per group (core, random, examples): (failed, the mistake its message names)."""
    func = load(source, name)
    found = {}
    for group in ALL_GROUPS:
        args = cases(name, group)
        messages = judge(name, group, [run_case(name, func, a) for a in args])
        found[group] = (bool(messages), named_mistake(name, messages[0]) if messages else None)
    return found


@pytest.fixture(scope="module")
def catalogue_verdicts() -> dict[tuple[str, str], tuple[str | None, dict]]:
    return {(n, label): (m, verdicts(n, src)) for n, label, m, src in every_wrong_answer()}


def test_every_wrong_answer_loses_points(catalogue_verdicts) -> None:
    passing = [
        key
        for key, (_, found) in catalogue_verdicts.items()
        if not any(failed for failed, _ in found.values())
    ]
    assert passing == []


def test_no_wrong_answer_is_named_as_another_mistake(catalogue_verdicts) -> None:
    misnamed = {
        key: found
        for key, (mistake, found) in catalogue_verdicts.items()
        if any(named not in (None, mistake) for _, named in found.values())
    }
    assert misnamed == {}


def test_at_least_nine_in_ten_wrong_answers_are_named(catalogue_verdicts) -> None:
    named = [
        key
        for key, (mistake, found) in catalogue_verdicts.items()
        if mistake is not None and any(n == mistake for _, n in found.values())
    ]
    unnamed_by_design = [key for key, (mistake, _) in catalogue_verdicts.items() if mistake is None]
    share = len(named) / len(catalogue_verdicts)
    print(
        f"\n{len(catalogue_verdicts)} wrong answers: {len(named)} named ({share:.0%}), "
        f"0 misnamed, {len(unnamed_by_design)} with no known mistake left unnamed"
    )
    assert share >= 0.9
    # Every one whose mistake is known is named in some group.
    assert len(named) + len(unnamed_by_design) == len(catalogue_verdicts)


@pytest.mark.parametrize(("name", "group"), [(n, g) for n in EXERCISES for g in ALL_GROUPS])
def test_the_cases_tell_every_two_known_mistakes_apart(name: str, group: str) -> None:
    # Two mistakes whose variants agree on every case of a group could not be told apart
    # there, and the one a student made might be named as the other.
    from bpe_course.mistakes import behaves_alike

    args_list = cases(name, group)
    right = [run_case(name, getattr(solutions, name), a) for a in args_list]
    runs = [(m.name, [run(v, a) for a in args_list]) for m in MISTAKES[name] for v in m.variants]
    # A variant right on every case of the group can never be named there (a variant names an
    # answer only when it does what the answer did on a failing case too): leave those out.
    reference = [run(getattr(solutions, name), a) for a in args_list]
    runs = [
        (mistake, outs)
        for mistake, outs in runs
        if not all(behaves_alike(name, e, x, r) for e, x, r in zip(right, outs, reference))
    ]
    alike = {
        (a, b)
        for i, (a, ra) in enumerate(runs)
        for b, rb in runs[i + 1 :]
        if a != b and all(behaves_alike(name, e, x, y) for e, x, y in zip(right, ra, rb))
    }
    assert alike == set()


def test_the_misnamings_the_issue_found_are_gone() -> None:
    first_only = MORE_WRONG["merge_pair"]["joins the first occurrence and stops"][1]
    shortest = MORE_WRONG["encode_bpe"]["the fewest tokens the table allows"][1]
    empty = MORE_WRONG["encode_bpe"]["a token for the empty word"][1]
    assert "string replacement missing back-to-back pairs" not in " ".join(
        failures("merge_pair", load(first_only, "merge_pair"), ALL_GROUPS)
    )
    assert "right-to-left" not in " ".join(failures("encode_bpe", load(shortest, "encode_bpe")))
    told = " ".join(failures("encode_bpe", load(empty, "encode_bpe"), ALL_GROUPS))
    assert "string replacement" not in told and "Likely mistake: a token for the empty word" in told


def test_a_changed_argument_is_told_first() -> None:
    wrong = load(MORE_WRONG["train_bpe"]["changes its argument as it goes"][1], "train_bpe")
    with pytest.raises(AssertionError) as raised:
        check("train_bpe", "core", wrong)
    lines = str(raised.value).splitlines()
    assert "(likely mistake: changing the caller's input)" in lines[0]
    assert lines[2].startswith("argument 1 was changed from: ")


def test_merge_and_update_is_told_which_arguments_are_only_read() -> None:
    # The other exercises' advice ("work on a copy") is wrong here: words, stats and where
    # are meant to change in place, and a copied stats fails another test.
    def changes_counts(words, counts, stats, where, pair):
        changed = solutions.merge_and_update(words, counts, stats, where, pair)
        counts[:] = [count + 1 for count in counts]
        return changed

    with pytest.raises(AssertionError) as raised:
        check("merge_and_update", "core", changes_counts)
    message = str(raised.value)
    assert "(likely mistake: changing the caller's input)" in message.splitlines()[0]
    assert "counts and pair are only read" in message and "copy, or" not in message


def test_an_unknown_mistake_is_described_without_a_name() -> None:
    # Two mistakes at once: no variant of ours does both, so none is named.
    wrong = load(MORE_WRONG["pair_counts"]["unweighted and once per word"][1], "pair_counts")
    with pytest.raises(AssertionError) as raised:
        check("pair_counts", "core", wrong)
    message = str(raised.value)
    assert "likely mistake" not in message.lower()
    # The pairs that differ, in plain words, under the expected and the got.
    assert "that is: " in message and ": should be " in message


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_visible_examples_answers_are_the_references(name: str) -> None:
    for args, value in EXAMPLES[name]:
        assert same(getattr(solutions, name)(*copy.deepcopy(args)), value), args
    check_examples(name, getattr(solutions, name))


def test_the_visible_examples_have_symbols_longer_than_one_letter() -> None:
    multi = [
        args
        for args, _ in EXAMPLES["pair_counts"]
        if any(len(s) > 1 for word in args[0] for s in word)
    ]
    assert multi
    wrong = load(
        MORE_WRONG["pair_counts"]["pairs the letters of the joined word"][1], "pair_counts"
    )
    with pytest.raises(AssertionError, match="pairs of characters instead of symbols"):
        check_examples("pair_counts", wrong)


def test_the_visible_and_hidden_messages_speak_with_one_voice() -> None:
    wrong = load(MORE_WRONG["merge_pair"]["moves on by one after a join"][1], "merge_pair")
    with pytest.raises(AssertionError) as visible:
        check_examples("merge_pair", wrong)
    with pytest.raises(AssertionError) as hidden:
        check("merge_pair", "examples", wrong)
    assert str(visible.value).replace(" examples", " test inputs") == str(hidden.value)
    assert "Likely mistake: overlapping merges." in str(visible.value)


class _Pairs:
    """A merge_pair answer's own class of result: not plain data."""

    def __repr__(self) -> str:
        return "_Pairs()"


def _returns_own_class(symbols, pair):
    return _Pairs()


def _raises_system_exit(symbols, pair):
    raise SystemExit("bye")


@pytest.mark.parametrize("wrong", [_returns_own_class, _raises_system_exit])
def test_the_visible_check_words_an_odd_answer_as_the_hidden_one_does(wrong) -> None:
    # One outcome model: an object of the answer's own class reads as Unplain, not its repr,
    # and SystemExit is a result to judge, in the notebook as in the graded run.
    with pytest.raises(AssertionError) as visible:
        check_examples("merge_pair", wrong)
    with pytest.raises(AssertionError) as hidden:
        check("merge_pair", "examples", wrong)
    visible_text, hidden_text = (
        str(e.value).replace(" examples", " test inputs") for e in (visible, hidden)
    )
    assert visible_text == hidden_text
