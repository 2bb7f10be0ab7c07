"""Forms made from the rules' models: every character field and every check parameter of the five systems
(and of any system: nothing here names one) goes through controls and back unchanged, lists as rows.

The round trip plays the browser: it submits exactly what the controls show (text as typed, checkboxes
as "on", selects' chosen options), so a control that lost or changed a value fails the comparison with
the model's own JSON of the example.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storymaster import safe_yaml
from storymaster.rules import all_systems, get_system
from storymaster.web.pages import forms
from storymaster.web.pages.sheets import opponent_value, read_check

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ROOT / "src" / "storymaster" / "web" / "templates" / "starters"
SYSTEMS = sorted(all_systems())


class Form(dict):
    """A submitted form: several values a name, like Starlette's."""

    def getlist(self, name: str) -> list[str]:
        v = self.get(name)
        return [] if v is None else list(v) if isinstance(v, list) else [v]

    def add(self, name: str, value: str) -> None:
        self.setdefault(name, [])
        self[name].append(value)


def submitted(nodes: list[dict[str, Any]], form: Form | None = None) -> Form:
    """What a browser sends for these controls (hidden markers first, as the page orders them)."""
    form = Form() if form is None else form
    for n in nodes:
        kind = n["kind"]
        if kind == "group":
            if n["optional"]:
                form.add(n["name"] + ".__on", "off")
                if n["present"]:
                    form.add(n["name"] + ".__on", "on")
            if n["present"]:
                submitted(n["children"], form)
        elif kind == "cells":
            submitted(n["children"], form)
        elif kind in ("rows", "mapping"):
            form.add(n["name"] + ".__rows", "1")
            for r in n["rows"]:
                submitted(r["children"], form)
        elif kind == "bool":
            form.add(n["name"], "off")
            if n["value"]:
                form.add(n["name"], "on")
        elif kind == "tristate":
            form.add(n["name"], {True: "yes", False: "no"}.get(n["value"], ""))
        elif kind == "choice" and n["value"] is None and not n["optional"]:
            form.add(n["name"], n["options"][0])  # a browser sends a select's first option
        else:
            form.add(n["name"], "" if n["value"] is None else str(n["value"]))
    return form


def starter(name: str) -> dict[str, Any]:
    data = safe_yaml.load((STARTERS / f"{name}.yaml").read_text())
    data.pop("system", None)
    return data


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_character_field_survives_the_form(name: str) -> None:
    system = get_system(name)
    want = system.coerce_character(starter(name)).model_dump(mode="json")
    nodes = forms.controls(system.character_model, want)
    got = system.coerce_character(forms.read(system.character_model, submitted(nodes))).model_dump(mode="json")
    assert got == want


@pytest.mark.parametrize("name", SYSTEMS)
def test_lists_are_rows_never_text(name: str) -> None:
    """Every list or mapping field of the sheet is a rows control (add / remove), none a text box of data."""
    system = get_system(name)
    nodes = forms.controls(system.character_model, {})
    from typing import get_origin

    for fname, f in system.character_model.model_fields.items():
        shape = forms._shape(f.annotation)
        if get_origin(forms._strip(f.annotation)[0]) in (list, tuple, dict):
            assert shape["kind"] in ("rows", "mapping", "cells"), (fname, shape["kind"])
    kinds = {n["kind"] for n in nodes}
    assert "rows" in kinds  # each of the five sheets has a list (skills, abilities, traits, weapons...)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_check_kind_survives_the_form(name: str) -> None:
    """Every check kind of the system, from its first entry on the starter (or its example) and back."""
    system = get_system(name)
    entries = system.checks_for(starter(name))
    for path in sorted((ROOT / "examples" / name).glob("*.yaml")):
        doc = safe_yaml.load(path.read_text())
        if isinstance(doc, dict) and "name" in doc:
            doc.pop("system", None)
            try:
                entries += system.checks_for(doc)
            except Exception:
                continue  # an example that is not a character (house rules)
    for kind in system.check_kinds:
        entry = next((e for e in entries if e.check == kind.name), None)
        want = system.make_check(entry or kind.name, dict(kind.example)).model_dump(mode="json")
        nodes = forms.controls(kind.model, want, prefix=f"chk.{kind.name}")
        form = submitted(nodes)
        form["check_type"] = kind.name
        got_kind, got = read_check(system, form)
        assert got_kind == kind.name
        assert system.make_check(kind.name, got).model_dump(mode="json") == want, kind.name


def test_an_entry_fills_in_from_the_sheet_and_the_form_the_rest() -> None:
    """The character's entry gives the ranks (the sheet); the form gives only the TD: the check reads the sheet."""
    system = get_system("blyss")
    entry = system.find_check(starter("blyss"), "strength", check="test")
    form = Form({"chk.test.td": ["3"], "chk.test.ranks.__rows": ["1"], "chk.test.ranks.0": ["9"]})
    kind, params = read_check(system, form, entry)
    check = system.make_check(entry, params)
    assert kind == "test" and check.td == 3 and list(check.ranks) == [4]  # Strength 4 on the sheet, not the 9 typed


def test_the_opponent_from_a_cast_members_entry() -> None:
    """A contest against someone in the scene takes their side of the same check from their sheet."""
    system = get_system("blyss")
    mine = system.find_check(starter("blyss"), "strength", check="contest")
    other = dict(starter("blyss"), name="Rival")
    other["attributes"] = {**other["attributes"], "strength": 2}
    theirs = system.find_check(other, "strength", check="contest")
    kind = system.check_kind("contest")
    assert opponent_value(kind, theirs)["ranks"] == [2]
    _name, params = read_check(system, Form(), mine, theirs)
    check = system.make_check(mine, params)
    assert list(check.a.ranks) == [4] and list(check.b.ranks) == [2] and "Rival" in check.b.name


def test_a_number_opponent_is_typed_not_guessed() -> None:
    """A Philsys parry is not the defender's attack value: a bare-number opposition comes from the form."""
    system = get_system("philsys")
    kind = system.check_kind("melee")
    entry = next(e for e in system.checks_for(starter("philsys")) if e.check == "melee")
    assert opponent_value(kind, entry) is None


def test_rows_added_and_removed_without_script() -> None:
    data = {"skills": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "deep": [{"xs": [1, 2]}]}
    assert forms.apply_op(data, "remove:skills.1")["skills"] == [{"name": "a"}, {"name": "c"}]
    assert forms.apply_op(data, "add:skills")["skills"][-1] is None
    assert forms.apply_op(data, "add:deep.0.xs")["deep"][0]["xs"] == [1, 2, None]
    assert forms.apply_op(data, "remove:deep.0.xs.0")["deep"][0]["xs"] == [2, None]
    assert forms.apply_op(data, "explode:skills") == data and forms.apply_op(data, "remove:nothing.9") == data


def test_empty_added_rows_are_dropped_and_gaps_are_renamed() -> None:
    system = get_system("bum")
    form = Form(
        {
            "f.skills.__rows": ["1"],
            "f.skills.0.name": ["Sword"],
            "f.skills.0.points": ["2"],
            "f.skills.3.name": [""],  # added, left empty
            "f.skills.5.name": ["Bow"],  # a row after one removed in the page
            "f.skills.5.points": ["x"],
        }
    )
    data, renames = forms.read_named(system.character_model, form, skip=[])
    assert [s["name"] for s in data["skills"]] == ["Sword", "Bow"]
    assert renames == {"f.skills.1": "f.skills.5"}
    by_name, _ = forms.locate(
        [{"where": "skills.1.points", "message": "a number"}], forms.controls(system.character_model, data)
    )
    assert forms.submitted_names(by_name, renames) == {"f.skills.5.points": ["a number"]}


def test_a_problem_lands_at_its_field_in_plain_words() -> None:
    system = get_system("fuzzy")
    nodes = forms.controls(system.character_model, starter("fuzzy"))
    by_name, listed = forms.locate(
        [{"where": "required.body", "message": "too low"}, {"where": "abilities[1].rating", "message": "bad"}], nodes
    )
    assert by_name["f.required.body"] == ["too low"] and by_name["f.abilities.1.rating"] == ["bad"]
    assert listed[0]["anchor"] == "f-f-required-body" and listed[0]["field"].endswith("Body")
    assert listed[1]["field"].startswith("Abilities 2")
