"""Budgets come from the campaign's house rules, which only the GM changes (issue 19 item 7).

The attack of the last round: a player set "Cp budget" to 2000 in the builder and spent it. Here a
player tries every way a sheet could raise its own budget (the old field, the experience the GM awards,
the house rules themselves, through the pages and through the API); each is refused, the character is
not made, and the same spending passes only once the GM raises the campaign's starting CP.
"""

from __future__ import annotations

import re

from pages.pagekit import form_values, sign_up

from storymaster.rules import get_system
from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


def _table(tmp_path):
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}", **FAST_ARGON2))
    gm, pat = sign_up(app, "gm"), sign_up(app, "pat")
    r = gm.post("/campaigns", {"name": "Budgets", "system": "blyss"})
    cid = int(r.headers["location"].rsplit("/", 1)[1])
    page = gm.post(f"/campaigns/{cid}/invites", {"role": "player"}).text
    invite = re.search(r'id="invite" readonly value="http://testserver(/join/[^"]+)"', page).group(1)
    assert pat.post(invite).status_code == 303
    return gm, pat, cid


def _big_spender(pat, cid):
    """The builder's form with every Attribute at rank 6 (the creation cap): far more than the book's 400 CP."""
    data = form_values(pat.get(f"/campaigns/{cid}/characters/new").text)
    for key in [k for k in data if k.startswith("f.attributes.")]:
        data[key] = "6"
    data["f.name"] = "Greedy"
    return data


def test_a_player_cannot_raise_the_cp_budget(tmp_path) -> None:
    gm, pat, cid = _table(tmp_path)
    data = _big_spender(pat, cid)
    system = get_system("blyss")
    sheet = {k[len("f.attributes.") :]: 6 for k in data if k.startswith("f.attributes.")}
    assert len(sheet) == 9
    # nine Attributes at rank 6 cost more than 400 / 9 = 44 CP each: over the book's budget
    left = system.sheet({"name": "x", "attributes": sheet}).section("resources").get("cp")
    assert left is not None and left.maximum == 400 and left.value < 0

    # 1. the field of the old builder: no such control, and a smuggled one changes nothing
    page = pat.get(f"/campaigns/{cid}/characters/new").text
    assert "cp_budget" not in page and "Cp budget" not in page
    assert "cp_earned" not in page  # the experience the GM awards is not the player's to type
    r = pat.post(f"/campaigns/{cid}/characters", {**data, "f.cp_budget": "2000", "cp_budget": "2000"})
    assert r.status_code == 422 and "over budget" in r.text
    # 2. the experience field, smuggled into the form: still the book's budget
    r = pat.post(f"/campaigns/{cid}/characters", {**data, "f.cp_earned": "1600"})
    assert r.status_code == 422 and "over budget" in r.text
    # 3. the API, with the sheet's own budget or awarded experience
    api = {"X-CSRF-Token": pat.csrf}
    url = f"/api/campaigns/{cid}/characters"
    r = pat.client.post(url, json={"sheet": {"name": "G", "attributes": sheet, "cp_budget": 2000}}, headers=api)
    assert r.status_code == 422 and "cannot set its own CP budget" in r.text
    r = pat.client.post(url, json={"sheet": {"name": "G", "attributes": sheet, "cp_earned": 1600}}, headers=api)
    assert r.status_code == 403 and "cp_earned" in r.text and "kept by the table" in r.text
    # 4. the house rules, by page and by API: the GM's
    r = pat.post(f"/campaigns/{cid}/house-rules", {"house_rules": "starting_cp: 2000"})
    assert r.status_code == 403
    r = pat.client.put(f"/api/campaigns/{cid}/house-rules", json={"house_rules": {"starting_cp": 2000}}, headers=api)
    assert r.status_code == 403
    names = [c["name"] for c in pat.client.get(url, headers=api).json()]
    assert "Greedy" not in names and "G" not in names

    # the GM raises the campaign's budget: the summary shows it and the same character is made
    assert gm.post(f"/campaigns/{cid}/house-rules", {"house_rules": "starting_cp: 2000"}).status_code == 303
    report = pat.post(f"/campaigns/{cid}/characters/check", data, headers={"Accept": "application/json"}).json()
    assert any(label == "CP left" and "of 2000" in value for label, value in report["totals"]), report["totals"]
    r = pat.post(f"/campaigns/{cid}/characters", data)
    assert r.status_code == 303, r.text


def test_a_player_keeps_the_awarded_experience_when_editing(tmp_path) -> None:
    """The GM's award stays on the sheet through a player's edit in the builder (which does not show it)."""
    gm, pat, cid = _table(tmp_path)
    data = form_values(pat.get(f"/campaigns/{cid}/characters/new").text)
    data["f.name"] = "Kept"
    r = pat.post(f"/campaigns/{cid}/characters", data)
    assert r.status_code == 303, r.text
    char = int(r.headers["location"].rsplit("/", 1)[1])
    api = {"X-CSRF-Token": gm.csrf}
    sheet = gm.client.get(f"/api/campaigns/{cid}/characters/{char}", headers=api).json()["sheet"]
    r = gm.client.put(
        f"/api/campaigns/{cid}/characters/{char}", json={"sheet": {**sheet, "cp_earned": 20}}, headers=api
    )
    assert r.status_code == 200, r.text  # the GM may (until the table awards it as a logged event)
    edit = form_values(pat.get(f"/campaigns/{cid}/characters/{char}/edit").text)
    assert "f.cp_earned" not in edit
    edit["f.concept"] = "changed by the player"
    r = pat.post(f"/campaigns/{cid}/characters", edit)
    assert r.status_code == 303, r.text
    after = gm.client.get(f"/api/campaigns/{cid}/characters/{char}", headers=api).json()["sheet"]
    assert after["cp_earned"] == 20 and after["concept"] == "changed by the player"
