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
