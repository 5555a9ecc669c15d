"""The mutation-testing list stays true without running mutmut's whole run (``make mutants``
does that): every mutant listed as equivalent is still one mutmut makes, with the listed
change, and still passes every hidden test; the pieces of the run behave on small inputs."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from tests.conftest import ROOT
from tests.mutation.equivalent import EQUIVALENT
from tests.mutation.generate import Mutant, all_mutants
from tests.mutation.kill import hidden_failure, owner, visible_failure
from tests.mutation.run_mutants import Tally, problems, tally

pytestmark = pytest.mark.slow  # generates and runs the mutants


def mutated_function(mutant: Mutant):
    """The exercise function of the module with only ``mutant`` applied."""
    name = owner(mutant.name)
    module = types.ModuleType(mutant.name.rpartition(".x_")[0])
    exec(compile(mutant.source, mutant.name, "exec"), module.__dict__)  # our reference's code
    return getattr(module, name)


@pytest.fixture(scope="module")
def mutants() -> dict[str, Mutant]:
    return all_mutants()


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_each_listed_equivalent_mutant_still_survives_the_hidden_tests(mutants, name) -> None:
    assert name in mutants, f"mutmut no longer makes {name}: run `make mutants`, update the list"
    listed, mutant = EQUIVALENT[name], mutants[name]
    assert mutant.before == (listed.before,) and mutant.after == (listed.after,), (
        f"{name} now changes {mutant.change}: run `make mutants` and update the list"
    )
    assert owner(name) is not None
    assert hidden_failure(owner(name), mutated_function(mutant)) is None


def test_a_killable_mutant_is_killed_by_both_kinds_of_test(mutants) -> None:
    # A control: the same machinery kills a mutant that really changes the answer.
    mutant = mutants["solutions.fast.x_merge_and_update__mutmut_94"]
    assert mutant.after == (
        "next_is_joined = n + 1 < len(sites) and sites[n - 1] == k + 1",
    )  # three joins side by side tell it apart (ababab)
    function = mutated_function(mutant)
    assert hidden_failure("merge_and_update", function).startswith("core: merge_and_update ")
    assert visible_failure("merge_and_update", function).startswith("AssertionError: ")


def test_the_figures_count_killed_survivors_and_equivalents() -> None:
    equivalent = next(iter(EQUIVALENT))
    name = owner(equivalent)
    statuses = {
        "hidden": {
            f"solutions.bpe.x_{name}__mutmut_900": "killed",
            f"solutions.bpe.x_{name}__mutmut_901": "timeout",
            f"solutions.bpe.x_{name}__mutmut_902": "survived",
            equivalent: "survived",
            "solutions.fast.x__train__mutmut_1": "no tests",  # not an exercise: left out
        },
        "visible": {
            f"solutions.bpe.x_{name}__mutmut_900": "killed",
            f"solutions.bpe.x_{name}__mutmut_901": "no tests",
            f"solutions.bpe.x_{name}__mutmut_902": "survived",
            equivalent: "survived",
        },
    }
    found = tally(statuses)[name]
    assert (found.made, found.hidden, found.visible, found.equivalent) == (4, 2, 1, 1)
    assert found.visible_survivors == [
        f"solutions.bpe.x_{name}__mutmut_901",
        f"solutions.bpe.x_{name}__mutmut_902",
    ]
    assert found.visible_share == 1 / 3
    trouble = problems({name: found}, statuses)
    assert f"solutions.bpe.x_{name}__mutmut_902 survives the hidden tests" in trouble[0]
    assert any("the visible tests kill 33%" in p for p in trouble)
    assert sum("listed as equivalent" in p for p in trouble) == len(EQUIVALENT) - 1
    assert Tally(made=2, equivalent=2).visible_share == 1.0


def test_the_checker_sees_the_frozen_reference_not_the_mutant(tmp_path) -> None:
    # A "mutated" solutions/ whose pair_counts is wrong, and a frozen copy of the real one.
    mutated = tmp_path / "mutated" / "solutions"
    mutated.mkdir(parents=True)
    for path in (ROOT / "solutions").glob("*.py"):
        text = path.read_text()
        if path.name == "bpe.py":
            text = text.replace("+ count\n", "+ 1\n", 1)  # unweighted counts
        (mutated / path.name).write_text(text)
    frozen = tmp_path / "frozen" / "solutions"
    frozen.mkdir(parents=True)
    for path in (ROOT / "solutions").glob("*.py"):
        (frozen / path.name).write_text(path.read_text())
    script = (
        "import sys; from pathlib import Path; sys.path.append(sys.argv[3])\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from tests.mutation.frozen import freeze\n"
        "from tests.mutation.kill import hidden_failure\n"
        "mutated = freeze(Path(sys.argv[2]))\n"
        "import solutions\n"
        "print(Path(solutions.__file__).parent.parent.name)\n"
        "print(hidden_failure('pair_counts', mutated['pair_counts']).splitlines()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(mutated.parent), str(frozen.parent), str(ROOT)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    where, message = done.stdout.splitlines()
    assert where == "frozen"
    assert message.startswith("core: pair_counts is wrong on ")
    assert "(likely mistake: unweighted counts)" in message
