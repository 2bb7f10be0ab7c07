"""The sheet page shows the character as play left it, and a check from the sheet feels it (issues 19.3, 19.6).

A Loose and Fuzzy character takes a serious wound (the GM's adjustment, with a reason): the sheet page
says so, with the book's penalty ("Injury penalties are not cumulative": a serious wound takes two
dice off every action, wounds.yaml from Combat Rules), the history shows who changed it and why, and
the composer's odds for a Body check from the sheet are the odds of Body minus two dice, worked out
here from the rules' own odds function on a check made by hand.
"""

from __future__ import annotations

import re

from storymaster.rules import get_system


def _sheet_of(table, char):
    r = table.gm.client.get(f"/api/campaigns/{table.cid}/characters/{char}", headers={"X-CSRF-Token": table.gm.csrf})
    sheet = dict(r.json()["sheet"])
    sheet.pop("system", None)
    return sheet


def test_a_wound_on_the_sheet_page_and_in_the_checks_odds(table) -> None:
    alis = table.chars["Alis"]
    page = table.alice.get(f"/campaigns/{table.cid}/characters/{alis}").text
    assert "Now: unhurt" in page and "No penalty on checks" in page

    r = table.gm.client.post(
        f"/api/campaigns/{table.cid}/characters/{alis}/condition",
        json={"values": {"wounds": [{"level": "serious", "by": "a troll", "round": 1}]}, "reason": "the troll's club"},
        headers={"X-CSRF-Token": table.gm.csrf},
    )
    assert r.status_code in (200, 201), r.text

    page = table.alice.get(f"/campaigns/{table.cid}/characters/{alis}").text
    now = re.search(r'<section class="sheet-section now".*?</section>', page, re.S).group(0)
    assert "serious" in now and "-2 dice" in now
    history = re.search(r'<section class="history.*?</section>', page, re.S).group(0)
    assert "the troll&#39;s club" in history or "the troll's club" in history
    assert "gm" in history and "made the character" in history
    article = re.sub(r"<[^>]+>", " ", re.search(r"<article.*?</article>", page, re.S).group(0))
    assert not re.search(r"\b(True|False|None)\b", article)

    # the composer: Alis's Body check from her sheet, the odds with two dice fewer
    system = get_system("fuzzy")
    sheet = _sheet_of(table, alis)
    entry = system.find_check(sheet, "body", check="ability")
    body_dice = entry.defaults["dice"]
    assert body_dice == sheet["required"]["body"] >= 3
    by_hand = system.make_check(entry, {"target": "average", "dice": body_dice - 2})
    want = system.odds(by_hand).p_success
    data = {
        "roll_kind": "check",
        "check_entry": f"{alis}|{entry.key}",
        "check_type": "ability",
        "chk.ability.target": "average",
        "character": str(alis),
    }
    r = table.alice.post(f"/scenes/{table.sid}/preview", data, headers={"Accept": "application/json"})
    assert r.status_code == 200, r.text
    odds = r.json()["html"]
    assert f"{float(want) * 100:.2f}%" in odds, odds
    assert "seriously wounded" in odds and "-2 dice" in odds
    unhurt = system.odds(system.make_check(entry, {"target": "average"})).p_success
    assert unhurt > want  # the wound made it harder
