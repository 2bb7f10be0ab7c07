"""The composer's check feels the character's condition: the odds preview names the penalty (issue 19)."""

from __future__ import annotations

import re

from pages.pagekit import build_table


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
