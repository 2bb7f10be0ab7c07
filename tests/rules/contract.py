"""The contract every rule system keeps, as plain functions any system's test suite can call.

A sixth system's package runs it with its own examples::

    from tests.rules.contract import Subject, run_contract   # or copy this file: it imports only storymaster
    def test_my_system_keeps_the_contract():
        run_contract(Subject(MY_SYSTEM, characters=[...], house_rules=[...], schema=PUBLISHED_SCHEMA))

What it asserts (issue 13):
- wrong input (house rules, characters, checks) raises the project's ``RulesInputError``;
- odds sum to one, exactly, for every check a character can make;
- every resolved outcome is one the odds give a chance above zero (hypothesis over seeds);
- the example characters validate against the published JSON Schema;
- every kind in the catalogue can be made (from an example character's entry, or from its ``example``)
  and every entry of every example character makes a check with its kind's ``example``;
- the sheet is structured, plain JSON, and names the same problems as ``validate_character``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from storymaster.dice import DiceRng
from storymaster.errors import CheckError, HouseRulesError, RulesInputError, StorymasterError
from storymaster.rules import Check, CheckEntry, HouseRules, Model, RuleSystem, Sheet

__all__ = ["Subject", "run_contract"]


@dataclass
class Subject:
    """A system and what to test it with: raw example characters (mappings, as in a file),
    example house-rules mappings, and the published JSON Schema of a character (or None)."""

    system: RuleSystem
    characters: Sequence[Mapping[str, Any]]
    house_rules: Sequence[Mapping[str, Any]] = field(default_factory=list)
    schema: Mapping[str, Any] | None = None
    #: how many seeds hypothesis tries per check in the p > 0 property
    examples_per_check: int = 5


class _Stranger(HouseRules):
    """House rules of no system: every system must refuse them."""

    stranger_option: bool = True


class _StrangerCheck(Check):
    """A check of no system."""

    n: int = 1


class _StrangerCharacter(Model):
    name: str = "stranger"


def run_contract(subject: Subject) -> None:
    """Every clause, in order; an AssertionError says which one and for what."""
    s = subject.system
    assert isinstance(s, RuleSystem), f"{s!r} does not satisfy RuleSystem"
    assert s.check_kinds, f"{s.name}: an empty check catalogue"
    assert set(s.check_types) == {k.name for k in s.check_kinds}
    check_schema(subject)
    characters = [s.coerce_character(dict(c)) for c in subject.characters]
    assert characters, f"{s.name}: the contract needs at least one example character"
    rules = [s.coerce_house_rules(dict(h)) for h in subject.house_rules] or [s.coerce_house_rules(None)]
    check_wrong_house_rules(subject)
    check_wrong_characters(subject)
    check_wrong_checks(subject, characters)
    for hr in rules:
        for c in characters:
            check_sheet(subject, c, hr)
        check_catalogue(subject, characters, hr)


def check_schema(subject: Subject) -> None:
    """The examples validate against the published schema, which is the model's own."""
    if subject.schema is None:
        return
    s = subject.system
    assert dict(subject.schema) == s.character_model.model_json_schema(), (
        f"{s.name}: the published character schema differs from the model's (regenerate it)"
    )
    for c in subject.characters:
        jsonschema.validate(dict(c), dict(subject.schema))


def _raises_input_error(what: str, fn: Any, *args: Any, **kwargs: Any) -> RulesInputError:
    try:
        fn(*args, **kwargs)
    except RulesInputError as exc:
        assert str(exc).strip(), f"{what}: an empty message"
        return exc
    except Exception as exc:  # pragma: no cover - the failure being reported
        raise AssertionError(f"{what}: raised {type(exc).__name__} ({exc}), not RulesInputError") from exc
    raise AssertionError(f"{what}: accepted")


def check_wrong_house_rules(subject: Subject) -> None:
    s = subject.system
    err = _raises_input_error("an unknown option", s.coerce_house_rules, {"no_such_option_anywhere": True})
    assert isinstance(err, HouseRulesError) and err.where == "house_rules.no_such_option_anywhere", err.where
    _raises_input_error("house rules as a list", s.coerce_house_rules, [1, 2])
    _raises_input_error("another system's house rules", s.coerce_house_rules, _Stranger())
    _raises_input_error("validate with foreign house rules", s.validate_character, None, _Stranger())
    for name, info in s.house_rules_model.model_fields.items():
        if info.annotation is bool:
            err = _raises_input_error(f"option {name} given a list", s.coerce_house_rules, {name: [1]})
            assert err.where == f"house_rules.{name}", err.where
            break


def check_wrong_characters(subject: Subject) -> None:
    s = subject.system
    _raises_input_error("a character as a list", s.coerce_character, [1, 2])
    _raises_input_error("another system's character", s.coerce_character, _StrangerCharacter())
    _raises_input_error("a sheet of junk", s.coerce_character, {"no_such_field_anywhere": {"x": [1]}})
    _raises_input_error("a sheet for another system", s.coerce_character, {**subject.characters[0], "system": "zz"})
    _raises_input_error("the sheet of a wrong type", s.sheet, _StrangerCharacter())
    _raises_input_error("the checks of a wrong type", s.checks_for, _StrangerCharacter())
    assert s.validate_character(_StrangerCharacter()), "a foreign character passes validation"


def check_wrong_checks(subject: Subject, characters: Sequence[BaseModel]) -> None:
    s = subject.system
    err = _raises_input_error("an unknown check kind", s.make_check, "no-such-kind")
    assert isinstance(err, CheckError)
    _raises_input_error("resolving a foreign check", s.resolve, _StrangerCheck(), DiceRng("contract"))
    _raises_input_error("odds of a foreign check", s.odds, _StrangerCheck())
    _raises_input_error("finding a check the character lacks", s.find_check, characters[0], "no such thing at all")
    for kind in s.check_kinds:
        err = _raises_input_error(f"{kind.name} with an unknown field", s.make_check, kind, {"no_such_field": 1})
        assert any(p.where == "no_such_field" for p in err.problems), err.problems
        required = [p["name"] for p in kind.parameters() if p["required"]]
        if required:
            err = _raises_input_error(f"{kind.name} without its parameters", s.make_check, kind.name, {})
            assert {p.where for p in err.problems} == set(required), (err.problems, required)

    junk = st.dictionaries(
        st.sampled_from(sorted({p["name"] for k in s.check_kinds for p in k.parameters()})),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(10**6), 10**6),
            st.floats(allow_nan=True, allow_infinity=True),
            st.text(max_size=8),
            st.lists(st.integers(-5, 30), max_size=4),
        ),
        max_size=4,
    )

    @settings(max_examples=60, database=None)
    @given(kind=st.sampled_from([k.name for k in s.check_kinds]), params=junk)
    def anything_in_a_result_or_a_handled_error(kind: str, params: dict[str, Any]) -> None:
        try:
            check = s.make_check(kind, params)
        except RulesInputError:
            return
        try:
            odds = s.odds(check)
        except StorymasterError:
            return
        assert sum(odds.probabilities.values(), Fraction(0)) == 1

    anything_in_a_result_or_a_handled_error()


def check_sheet(subject: Subject, character: BaseModel, hr: Any) -> None:
    s = subject.system
    sheet = s.sheet(character, hr)
    assert isinstance(sheet, Sheet) and sheet.system == s.name
    assert sheet.sections, f"{s.name}: a sheet with no sections"
    assert [str(p) for p in sheet.problems] == [str(p) for p in s.validate_character(character, hr)]
    json.dumps(sheet.to_json())  # plain JSON all the way down
    assert all(not sec.empty or sec.is_table for sec in sheet.sections), [
        sec.key for sec in sheet.sections if sec.empty and not sec.is_table
    ]


def _made(subject: Subject, entry: CheckEntry | str, hr: Any) -> Check:
    s = subject.system
    kind = s.check_kind(entry.check if isinstance(entry, CheckEntry) else entry)
    check = s.make_check(entry, kind.example)
    odds = s.odds(check, hr)
    total = sum(odds.probabilities.values(), Fraction(0))
    assert total == 1, f"{s.name} {kind.name}: odds sum to {total}"
    assert odds.p_success <= 1
    return check


def check_catalogue(subject: Subject, characters: Sequence[BaseModel], hr: Any) -> None:
    s = subject.system
    seen: set[str] = set()
    checks: list[Check] = []
    for c in characters:
        entries = s.checks_for(c, hr)
        keys = [e.key for e in entries]
        assert len(keys) == len(set(keys)), f"{s.name}: repeated entry keys"
        for e in entries:
            assert e.check in s.check_types, e
            assert s.find_check(c, e.key) == e
            kind = s.check_kind(e.check)
            assert set(e.needs) <= {p["name"] for p in kind.parameters() if p["required"]}
            assert set(e.needs) <= set(kind.example), f"{s.name} {e.key}: the kind's example lacks {e.needs}"
            checks.append(_made(subject, e, hr))
            seen.add(e.check)
    for kind in s.check_kinds:
        if kind.name not in seen:  # no example character makes it: its example alone must
            checks.append(_made(subject, kind.name, hr))

    odds = [s.odds(check, hr) for check in checks]

    @settings(max_examples=subject.examples_per_check, database=None)
    @given(seed=st.integers(0, 2**32))
    def every_outcome_is_possible(seed: int) -> None:
        for check, o in zip(checks, odds, strict=True):
            outcome = s.resolve(check, DiceRng(seed, "contract"), hr)
            assert o.probability(outcome.result) > 0, (s.name, check, outcome.result, dict(o.probabilities))

    every_outcome_is_possible()
