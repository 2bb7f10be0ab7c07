"""The composer's check feels the character's condition: the odds preview names the penalty (issue 19)."""

from __future__ import annotations

import re

import pytest
from pages.pagekit import build_table, form_values


def test_the_composers_odds_show_the_wound_penalty(app) -> None:
    t = build_table(app, "fuzzy")
    alis = t.chars["Alis"]
    page = t.alice.get(f"/scenes/{t.sid}").text
    entry = next(v for v in re.findall(r'value="([^"]+)"', page) if v.startswith(f"{alis}|") and "body" in v.lower())

    def preview() -> str:
        r = t.alice.post(
            f"/scenes/{t.sid}/preview",
            {"roll_kind": "check", "check_entry": entry, "chk.ability.target": "7"},
            headers={"accept": "application/json"},
        )
        assert r.status_code == 200, r.text
        return r.json()["html"]

    assert "penalt" not in preview()
    r = t.gm.client.post(
        f"/api/campaigns/{t.cid}/characters/{alis}/actions",
        json={"request": {"action": "wound", "level": "serious", "tenacity": True, "by": "a guard"}},
        headers={"X-CSRF-Token": t.gm.csrf},
    )
    assert r.status_code == 200, r.text
    shown = preview()
    # "Seriously wounded ... They are now at -2 dice to all actions"
    assert "seriously wounded (-2 dice to all actions" in shown


def test_the_sheet_pages_table_controls(app) -> None:
    t = build_table(app, "fuzzy")
    alis = t.chars["Alis"]
    url = f"/campaigns/{t.cid}/characters/{alis}"
    page = t.gm.get(url).text
    assert "At the table" in page and 'value="adjust"' in page
    assert 'value="adjust"' not in t.alice.get(url).text  # setting by hand is the GM's
    r = t.gm.post(url + "/table", {"what": "action", "action": "wound", "fields": "level: moderate\ntenacity: true"})
    assert r.status_code == 303, r.text
    page = t.alice.get(url).text
    assert "Now: moderately wounded" in page and "-1 dice to all actions" in page
    # the reason is asked for where the book leaves it to the GM, and a player may not set values by hand
    r = t.gm.post(url + "/table", {"what": "action", "action": "heal", "fields": "wound: 0"})
    assert r.status_code == 422 and "reason" in r.text
    r = t.alice.post(url + "/table", {"what": "adjust", "fields": "status: dead", "reason": "I give up"})
    assert r.status_code == 403
    r = t.gm.post(url + "/table", {"what": "adjust", "fields": "[1, 2", "reason": "x"})
    assert r.status_code == 422
    r = t.gm.post(url + "/table", {"what": "adjust", "fields": "status: incapacitated", "reason": "a fall"})
    assert r.status_code == 303
    assert "Now: incapacitated" in t.alice.get(url).text
    r = t.gm.post(url + "/table", {"what": "advance", "fields": "action: award\npoints: 2"})
    assert r.status_code == 303
    assert "What changed (3)" in t.gm.get(url).text


def _action_form(page: str, action: str) -> str:
    """The HTML of one between-scenes form on the sheet page."""
    found = re.search(rf'<details class="table-action" id="act-{action}">.*?</details>', page, re.S)
    assert found is not None, f"no {action} form"
    return found.group(0)


def test_between_scenes_rules_are_forms_with_the_models_fields(app) -> None:
    """BLYSS's ``time`` (Fatigue, Hunger and Thirst): hours, asleep, eating, drinking as controls holding the
    request model's defaults (eating and drinking: yes), read back through the model; no YAML box."""

    t = build_table(app, "blyss")
    alis = t.chars["Alis"]
    url = f"/campaigns/{t.cid}/characters/{alis}"
    page = t.gm.get(url).text
    form = _action_form(page, "time")
    assert 'name="fields"' not in form and "<textarea" not in form
    assert re.search(r'<input type="checkbox" id="[^"]+" name="act.time.eating" value="on" checked', form)
    assert not re.search(r'name="act.time.asleep" value="on" checked', form)
    assert "required" in _action_form(page, "heal").split('name="reason"')[1].split(">")[0]  # B-L3: a reason

    def condition() -> dict:
        r = t.gm.client.get(f"/api/campaigns/{t.cid}/characters/{alis}/condition")
        assert r.status_code == 200, r.text
        return r.json()["condition"]

    data = form_values(form)
    data["act.time.hours"] = "40"
    assert t.gm.post(url + "/table", data).status_code == 303
    cond = condition()
    # awake 40 hours, eating and drinking as the form's defaults say: those clocks restart
    assert (cond["hours_awake"], cond["hours_unfed"], cond["hours_dry"]) == (40, 0, 0)
    data = form_values(form)
    data["act.time.eating"] = "off"  # the checkbox unticked: only its hidden "off" is sent
    data["act.time.hours"] = "10"
    assert t.gm.post(url + "/table", data).status_code == 303
    cond = condition()
    assert (cond["hours_awake"], cond["hours_unfed"], cond["hours_dry"]) == (50, 10, 0)
    # a bad number is refused at the model, and changes nothing
    data["act.time.hours"] = "soon"
    r = t.gm.post(url + "/table", data)
    assert r.status_code == 422 and "hours" in r.text
    assert condition()["hours_awake"] == 50
    # the player sees no between-scenes rule BLYSS gives players
    assert 'class="table-action"' not in t.alice.get(url).text


def test_a_players_form_leaves_out_what_only_the_gm_sets(app) -> None:
    """Kalyr's ``spend_fudge`` is the player's (Fudge Points); its veto is the GM's alone."""
    t = build_table(app, "kalyr")
    alis = t.chars["Alis"]
    url = f"/campaigns/{t.cid}/characters/{alis}"
    mine = t.alice.get(url).text
    assert "act.spend_fudge.use" in _action_form(mine, "spend_fudge")
    assert "act.spend_fudge.vetoed" not in mine and 'id="act-rest"' not in mine
    assert "act.spend_fudge.vetoed" in _action_form(t.gm.get(url).text, "spend_fudge")


def _adjust_form(page: str) -> str:
    found = re.search(r'<details class="table-adjust" id="adjust"[^>]*>.*?</details>', page, re.S)
    assert found is not None, "no adjustment form"
    return found.group(0)


def test_the_gms_adjustment_is_the_condition_models_fields(app) -> None:
    """Loose and Fuzzy's condition (wounds, status): every value as it is now, a wound added as a row (without
    JavaScript the server shows the form again with the row), the change logged with the GM's reason."""

    t = build_table(app, "fuzzy")
    alis = t.chars["Alis"]
    url = f"/campaigns/{t.cid}/characters/{alis}"

    def condition() -> dict:
        r = t.gm.client.get(f"/api/campaigns/{t.cid}/characters/{alis}/condition")
        assert r.status_code == 200, r.text
        return r.json()

    page = t.gm.get(url).text
    form = _adjust_form(page)
    assert "<textarea" not in form and 'name="set.status"' in form
    assert "table-adjust" not in t.alice.get(url).text  # setting by hand is the GM's
    data = {**form_values(form), "reason": "a fall"}
    r = t.gm.post(url + "/table", data)  # nothing changed: refused
    assert r.status_code == 422 and "changes nothing" in r.text
    r = t.gm.post(url + "/table", {**data, "op": "add:wounds"})
    assert r.status_code == 200 and condition()["condition"]["wounds"] == []
    form = _adjust_form(r.text)
    assert 'id="adjust" open' in form and 'name="set.wounds.0.level"' in form
    data = {**form_values(form), "set.wounds.0.level": "moderate", "set.wounds.0.by": "a fall", "reason": "a fall"}
    r = t.gm.post(url + "/table", data)  # the row's every required field is asked for, by name
    assert r.status_code == 422 and "wounds.0.round" in r.text
    data["set.wounds.0.round"] = "0"
    assert t.gm.post(url + "/table", data).status_code == 303
    now = condition()
    assert [(w["level"], w["by"]) for w in now["condition"]["wounds"]] == [("moderate", "a fall")]
    assert now["history"][-1]["why"] == {"kind": "gm", "reason": "a fall"}
    # no reason: refused (the GM's change by hand says why)
    data = {**form_values(_adjust_form(t.gm.get(url).text)), "set.wounds.0.level": "serious"}
    assert t.gm.post(url + "/table", data).status_code == 422


def _advance_form(page: str, kind: str) -> str:
    found = re.search(rf'<details class="table-advance" id="adv-{kind}"[^>]*>.*?</details>', page, re.S)
    assert found is not None, f"no {kind} form"
    return found.group(0)


def test_experience_is_a_form_per_request(app) -> None:
    """BLYSS Experience: the SM's award ("Always award 3 CP", +1 per very challenging experience) and the
    player's spending, each its own form made from the request model; the award is not the player's."""

    t = build_table(app, "blyss")
    alis = t.chars["Alis"]
    url = f"/campaigns/{t.cid}/characters/{alis}"

    def sheet() -> dict:
        r = t.gm.client.get(f"/api/campaigns/{t.cid}/characters/{alis}")
        assert r.status_code == 200, r.text
        return r.json()["sheet"]

    gm_page, mine = t.gm.get(url).text, t.alice.get(url).text
    award = _advance_form(gm_page, "AwardExperience")
    assert "<textarea" not in award and 'name="adv.AwardExperience.challenges"' in award
    assert 'id="adv-AwardExperience"' not in mine and 'id="adv-SpendCP"' in mine
    before = sheet().get("cp_earned", 0)
    data = {**form_values(award), "adv.AwardExperience.challenges": "2"}
    assert t.gm.post(url + "/table", data).status_code == 303
    assert sheet()["cp_earned"] == before + 3 + 2
    # the player spends one CP towards the next rank of Strength (a partial purchase is noted)
    spend = {**form_values(_advance_form(mine, "SpendCP")), "adv.SpendCP.target": "Strength", "adv.SpendCP.cp": "1"}
    assert t.alice.post(url + "/table", spend).status_code == 303
    history = t.gm.client.get(f"/api/campaigns/{t.cid}/characters/{alis}/condition").json()["history"]
    assert [h["why"]["kind"] for h in history][-2:] == ["advance", "advance"]
    # the award sent by the player is refused (the SM awards CP)
    assert t.alice.post(url + "/table", data).status_code in (403, 422)
    assert sheet()["cp_earned"] == before + 5


@pytest.mark.parametrize("system", ["blyss", "bum", "fuzzy", "kalyr", "philsys"])
def test_every_systems_table_forms_are_read_back_as_their_own_request(app, system: str) -> None:
    """Each system's between-scenes and experience forms, sent as the page holds them: the table answers
    (done, or refused with the rules' reason), never with a server error, and an experience form is never read as
    another request of the system's."""

    t = build_table(app, system)
    url = f"/campaigns/{t.cid}/characters/{t.chars['Alis']}"
    page = t.gm.get(url).text
    forms = re.findall(r'<details class="table-(?:action|advance|adjust)" id="[^"]+"[^>]*>.*?</details>', page, re.S)
    assert forms and 'name="fields"' not in "".join(forms)  # no YAML box (a description may be a text area)
    for form in forms:
        r = t.gm.post(url + "/table", {**form_values(form), "reason": "a test"})
        assert r.status_code in (303, 403, 409, 422), (system, form[:80], r.status_code)
        assert "the table reads this as" not in r.text, (system, form[:80])
    # a list of rows added without JavaScript: the form again, open, with a row
    rows = [f for f in forms if "data-add-row" in f]
    for form in rows[:1]:
        op = re.search(r'name="op" value="(add:[^"]+)"', form).group(1)
        r = t.gm.post(url + "/table", {**form_values(form), "op": op})
        assert r.status_code == 200 and " open>" in r.text


def test_closing_a_scene_from_its_page_clears_kalyr_scratches(app) -> None:
    """The scene page's close (confirmed) ends the book's scene for its cast: "Scratches go away at the end of a
    scene" (Kalyr, Getting rid of damage), shown on the sheet's history with the reason."""
    t = build_table(app, "kalyr")
    alis = t.chars["Alis"]
    api = f"/api/campaigns/{t.cid}/characters/{alis}"
    r = t.gm.client.post(
        api + "/actions",
        json={"request": {"action": "wound", "track": "physical", "severity": "Scratch"}},
        headers={"X-CSRF-Token": t.gm.csrf},
    )
    assert r.status_code == 200, r.text
    assert [w["box"] for w in t.gm.client.get(api + "/condition").json()["condition"]["damage"]["physical"]["wounds"]]
    assert t.gm.post(f"/scenes/{t.sid}/close", {"confirm": "yes"}).status_code == 303
    cond = t.gm.client.get(api + "/condition").json()
    assert cond["condition"]["damage"]["physical"]["wounds"] == []
    assert "(end of scene)" in t.alice.get(f"/campaigns/{t.cid}/characters/{alis}").text
