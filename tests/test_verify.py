"""Verdicts, answer checks and agreement (`sudokubench.harness.verify`): pure, no processes."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench import Grid, count, is_solution
from sudokubench.backend import Status
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness.verify import (
    EXPECTED,
    UNKNOWN,
    Verdict,
    Voice,
    agree,
    check_answer,
    expected_voice,
    verdict_of,
)

#: The telegram grid's one solution, as course.txt states it.


@cache
def multiple_solutions() -> tuple[str, ...]:
    """The 28 solutions of MULTIPLE, found by the reference backend and checked here."""
    result = count(MULTIPLE, backend="backtracking", limit=100)
    assert result.exhaustive and result.count == 28
    puzzle = Grid.parse(MULTIPLE)
    assert all(is_solution(s, puzzle) for s in result.solutions)
    return tuple(str(s) for s in result.solutions)


def answer(source, puzzle, status, solutions=(), exhaustive=False, limit=None, count=None):
    """check_answer with the count taken from the solutions unless given."""
    return check_answer(
        source,
        Grid.parse(puzzle),
        status=status,
        count=len(solutions) if count is None else count,
        exhaustive=exhaustive,
        solutions=solutions,
        limit=limit,
    )


# -- verdicts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "n", "exhaustive", "shown"),
    [
        ("solved", 1, True, "=1"),
        ("solved", 2, False, ">=2"),
        ("unsatisfiable", 0, True, "0"),
        ("timeout", 0, False, "?"),
        ("timeout", 3, False, ">=3"),
        ("error", 0, False, "?"),
    ],
)
def test_verdict_of_each_kind_of_result(status, n, exhaustive, shown):
    verdict = verdict_of(status, n, exhaustive)
    assert str(verdict) == shown
    assert Verdict.parse(shown) == verdict


@given(st.sampled_from(["exact", "at_least"]), st.integers(0, 10**6))
def test_verdict_text_round_trips(kind, n):
    verdict = Verdict(kind, n)
    assert Verdict.parse(str(verdict)) == verdict
    assert Verdict.parse("?") is UNKNOWN


# -- one answer on its own --------------------------------------------------------------------


def test_a_correct_unique_answer_is_sound():
    voice = answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True, limit=2)
    assert voice.sound and voice.verdict == Verdict("exact", 1)
    assert voice.solutions == (TELEGRAM_SOLUTION,)


def test_a_solution_that_breaks_a_given_is_wrong():
    # A valid complete grid: digits 1 and 9 swapped everywhere in the real solution.
    swapped = TELEGRAM_SOLUTION.translate(str.maketrans("19", "91"))
    voice = answer("a", TELEGRAM, "solved", [swapped])
    assert not voice.sound
    assert "the puzzle gives" in voice.problem
    assert voice.solutions == ()


def test_a_solution_with_a_repeated_digit_is_wrong():
    broken = "1" + TELEGRAM_SOLUTION[1:]  # r1c1 = 1, but row 1 already holds a 1
    voice = answer("a", "." * 81, "solved", [broken])
    assert not voice.sound and "twice in" in voice.problem


def test_a_solution_that_is_not_a_grid_is_wrong():
    voice = answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION[:80]])
    assert not voice.sound and "not a grid" in voice.problem


def test_an_incomplete_solution_is_wrong():
    voice = answer("a", TELEGRAM, "solved", ["." + TELEGRAM_SOLUTION[1:]])
    assert not voice.sound and "empty" in voice.problem


def test_the_same_solution_twice_is_wrong():
    voice = answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION] * 2)
    assert not voice.sound and "repeats solution 1" in voice.problem


def test_a_count_below_the_solutions_or_without_a_grid_is_wrong():
    two = multiple_solutions()[:2]
    voice = answer("a", MULTIPLE, "solved", two, count=1)
    assert not voice.sound and "claims 1 solutions but returned 2" in voice.problem
    voice = answer("a", TELEGRAM, "solved", [], count=1)
    assert not voice.sound and "claims 1 solutions but returned 0" in voice.problem


def test_a_count_above_its_grids_is_a_claim_the_agreement_checks():
    # a backend may keep fewer grids than it counts (lib: gives its first grid only)
    voice = answer("a", MULTIPLE, "solved", multiple_solutions()[:1], exhaustive=True, count=28)
    assert voice.sound and str(voice.verdict) == "=28"
    wrong = answer("b", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True, count=2)
    right = answer("c", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True)
    assert wrong.sound and not agree("p", [wrong, right]).agreed


def test_more_solutions_than_the_limit_is_wrong():
    two = multiple_solutions()[:2]
    voice = answer("a", MULTIPLE, "solved", two, limit=1)
    assert not voice.sound and "more than the limit 1" in voice.problem


def test_unsatisfiable_with_solutions_is_wrong():
    voice = answer("a", TELEGRAM, "unsatisfiable", [TELEGRAM_SOLUTION], exhaustive=True)
    assert not voice.sound and "unsatisfiable" in voice.problem


@pytest.mark.parametrize(
    ("status", "solutions", "count", "exhaustive", "why"),
    [
        ("solved", [], 0, False, "says solved but returned no solution"),
        ("solved", [], 0, True, "says solved but returned no solution"),
        ("unsatisfiable", [], 0, False, "not exhaustive"),
        ("error", [], 0, True, "says error but also that its search was exhaustive"),
    ],
)
def test_an_answer_that_contradicts_its_own_status_is_wrong(
    status, solutions, count, exhaustive, why
):
    voice = answer("a", TELEGRAM, status, solutions, exhaustive=exhaustive, count=count)
    assert not voice.sound and why in voice.problem
    assert not agree("p", [voice]).agreed  # alone, it is still a wrong answer


def test_a_late_answer_stored_as_a_timeout_keeps_its_claims():
    # an answer after the limit is stored as TIMEOUT with what it said (stats.limited_status)
    late = answer("a", TELEGRAM, "timeout", [TELEGRAM_SOLUTION], exhaustive=True)
    assert late.sound and late.verdict == Verdict("exact", 1)


def test_solutions_come_back_in_canonical_form():
    record = next(read_puzzles(collection_path("hexadoku1500")))
    lower = str(record.expected_solution).lower()
    voice = check_answer(
        "a", record.puzzle, status="solved", count=1, exhaustive=False, solutions=[lower]
    )
    assert voice.sound and voice.solutions == (str(record.expected_solution),)


# -- the file's expected answer ---------------------------------------------------------------


def test_expected_voice_from_count_solution_or_both():
    puzzle = Grid.parse(TELEGRAM)
    assert expected_voice(puzzle, None, None) is None
    assert expected_voice(puzzle, 1, None).verdict == Verdict("exact", 1)
    only_solution = expected_voice(puzzle, None, TELEGRAM_SOLUTION)
    assert only_solution.verdict == Verdict("at_least", 1)
    assert only_solution.solutions == (TELEGRAM_SOLUTION,) and only_solution.sound


def test_a_wrong_expected_solution_is_flagged():
    swapped = TELEGRAM_SOLUTION.translate(str.maketrans("19", "91"))
    voice = expected_voice(Grid.parse(TELEGRAM), 1, swapped)
    assert voice.source == EXPECTED and not voice.sound


# -- agreement ----------------------------------------------------------------------------------


def test_backends_that_find_the_one_solution_agree_with_the_file():
    voices = [
        answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True),
        answer("b", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True),
        expected_voice(Grid.parse(TELEGRAM), 1, TELEGRAM_SOLUTION),
    ]
    verdict = agree("p", voices)
    assert verdict.agreed and verdict.consensus == "=1" and not verdict.blamed


def test_unsatisfiable_against_a_valid_solution_blames_the_unsat_claim():
    voices = [
        answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True),
        answer("b", TELEGRAM, "unsatisfiable", [], exhaustive=True),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.consensus == "disputed"
    assert verdict.blamed == {"b"}
    (problem,) = verdict.problems
    assert problem.kind == "disagree"
    assert dict(problem.sides) == {"0": ("b",), "=1": ("a",)}


def test_two_unique_claims_with_different_grids_disagree():
    s1, s2 = multiple_solutions()[:2]
    voices = [
        answer("a", MULTIPLE, "solved", [s1], exhaustive=True),
        answer("b", MULTIPLE, "solved", [s2], exhaustive=True),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.blamed == {"a", "b"}
    assert "2 different valid solutions" in verdict.problems[0].message


def test_a_lower_bound_is_compatible_with_a_larger_exact_count():
    solutions = multiple_solutions()
    voices = [
        answer("limited", MULTIPLE, "solved", solutions[:2], limit=2),
        answer("counter", MULTIPLE, "solved", solutions, exhaustive=True, limit=100),
        expected_voice(Grid.parse(MULTIPLE), 28, None),
    ]
    verdict = agree("p", voices)
    assert verdict.agreed and verdict.consensus == "=28"


def test_a_lower_bound_above_an_exact_count_disagrees():
    solutions = multiple_solutions()
    voices = [
        answer("limited", MULTIPLE, "solved", solutions[:2], limit=2),
        answer("short", MULTIPLE, "solved", solutions[:1], exhaustive=True),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.blamed == {"short"}


def test_without_an_exact_count_the_consensus_is_the_best_lower_bound():
    solutions = multiple_solutions()
    voices = [
        answer("a", MULTIPLE, "solved", solutions[:2], limit=2),
        answer("b", MULTIPLE, "solved", solutions[2:4], limit=2),
        answer("slow", MULTIPLE, "timeout"),
    ]
    verdict = agree("p", voices)
    assert verdict.agreed and verdict.consensus == ">=4" and verdict.solutions_found == 4


def test_a_backend_contradicting_the_file_count_is_blamed():
    solutions = multiple_solutions()
    voices = [
        answer("a", MULTIPLE, "solved", solutions[:27], exhaustive=True, limit=100),
        expected_voice(Grid.parse(MULTIPLE), 28, None),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.blamed == {"a"}


def test_a_file_count_refuted_by_valid_solutions_is_blamed():
    voices = [
        answer("a", MULTIPLE, "solved", multiple_solutions()[:2], limit=2),
        expected_voice(Grid.parse(MULTIPLE), 1, None),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.blamed == {EXPECTED}


def test_a_wrong_solution_is_listed_as_wrong_and_the_rest_still_count():
    swapped = TELEGRAM_SOLUTION.translate(str.maketrans("19", "91"))
    voices = [
        answer("good", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True),
        answer("bad", TELEGRAM, "solved", [swapped]),
    ]
    verdict = agree("p", voices)
    assert not verdict.agreed and verdict.blamed == {"bad"}
    assert [p.kind for p in verdict.problems] == ["wrong"]
    assert verdict.problems[0].message.startswith("bad: solution 1 is wrong")


def test_timeouts_and_errors_take_no_side():
    voices = [
        answer("a", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True),
        answer("t", TELEGRAM, "timeout"),
        answer("e", TELEGRAM, "error"),
    ]
    verdict = agree("p", voices)
    assert verdict.agreed and verdict.consensus == "=1"
    assert agree("q", [answer("t", TELEGRAM, "timeout")]).consensus == "?"


def test_samples_of_one_backend_are_named_once_per_side():
    voices = [answer("a", TELEGRAM, "unsatisfiable", exhaustive=True)] * 3 + [
        answer("b", TELEGRAM, "solved", [TELEGRAM_SOLUTION], exhaustive=True)
    ]
    sides = dict(agree("p", voices).problems[0].sides)
    assert sides == {"0": ("a",), "=1": ("b",)}


# -- properties over the 28 solutions of MULTIPLE ---------------------------------------------

subsets = st.lists(st.integers(0, 27), unique=True, max_size=28)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(subsets, st.integers(1, 40)), min_size=1, max_size=5))
def test_honest_answers_always_agree(picks):
    """Any honest mix (limit reached, exhaustive, timeouts with partial results) agrees."""
    solutions = multiple_solutions()
    voices = []
    for i, (subset, limit) in enumerate(picks):
        found = [solutions[j] for j in subset][:limit]
        if len(found) == 28:
            voices.append(answer(f"b{i}", MULTIPLE, "solved", found, exhaustive=True))
        elif len(found) == limit:
            voices.append(answer(f"b{i}", MULTIPLE, "solved", found, limit=limit))
        else:
            voices.append(answer(f"b{i}", MULTIPLE, "timeout", found))
    voices.append(expected_voice(Grid.parse(MULTIPLE), 28, None))
    verdict = agree("p", voices)
    assert verdict.agreed and verdict.consensus == "=28" and not verdict.blamed


@settings(max_examples=60, deadline=None)
@given(subsets, subsets)
def test_an_exact_count_below_the_solutions_found_is_always_caught(claimed, others):
    """A backend that claims its partial list is everything is blamed whenever others saw more."""
    solutions = multiple_solutions()
    liar = answer("liar", MULTIPLE, "solved", [solutions[j] for j in claimed], exhaustive=True)
    found = [solutions[j] for j in others]
    honest = answer("honest", MULTIPLE, "solved" if found else "timeout", found, limit=40)
    if not claimed:
        liar = answer("liar", MULTIPLE, "unsatisfiable", exhaustive=True)
    verdict = agree("p", [liar, honest])
    if set(others) <= set(claimed):
        assert verdict.agreed
    else:
        assert not verdict.agreed and "liar" in verdict.blamed and "honest" not in verdict.blamed


@given(
    kind=st.sampled_from(["exact", "at_least", "unknown"]),
    n=st.integers(0, 5),
    sound=st.booleans(),
)
def test_one_answer_alone_gets_the_verdict_the_general_rules_give(kind, n, sound):
    # `agree` takes a short cut for a single sound voice; a second voice that says nothing
    # (a timeout) sends the same answer through the general rules
    verdict = Verdict(kind, {"exact": n, "at_least": n + 1, "unknown": 0}[kind])  # as verdict_of
    solutions = tuple(f"grid{i}" for i in range(verdict.n if kind != "unknown" else 0))
    voice = Voice("a", verdict, solutions if sound else (), None if sound else "broken")
    alone = agree("p", [voice])
    general = agree("p", [voice, Voice("b", UNKNOWN)])
    assert alone == general


@pytest.mark.parametrize(
    ("status", "count", "exhaustive"),
    [
        (Status.SOLVED, 1, True),
        (Status.SOLVED, 2, False),
        (Status.UNSATISFIABLE, 0, True),
        (Status.TIMEOUT, 0, False),
        (Status.TIMEOUT, 3, False),
        (Status.ERROR, 0, False),
    ],
)
def test_a_verdicts_text_is_its_str(status, count, exhaustive):
    verdict = verdict_of(status, count, exhaustive)
    assert verdict.text == str(verdict) == str(Verdict.parse(verdict.text))
    assert verdict.text == {1: "=1", 2: ">=2", 3: ">=3"}.get(count, "0" if exhaustive else "?")
