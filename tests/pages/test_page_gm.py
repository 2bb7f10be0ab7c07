"""The GM's view: the fight tracker (order, tracks, whose turn, forecast), acting for a tardy character, notes,
closing.
"""

from __future__ import annotations

import re

import pytest
from pages.pagekit import build_table


@pytest.mark.parametrize("system", ["fuzzy", "philsys"])
def test_fight_tracker(app, system):
    t = build_table(app, system=system)
    gm = t.gm
    r = gm.post(f"/scenes/{t.sid}/fight", {"action": "start", "side1": t.chars["Alis"], "side2": t.chars["Bobo"]})
    assert r.status_code == 303, r.text
    page = gm.get(f"/scenes/{t.sid}").text
    assert "Fight tracker" in page and "Combatants" in page and "Condition" in page
    if system == "philsys":
        assert "Forecast" in page and "wins" in page and "No forecast" not in page
    r = gm.post(f"/scenes/{t.sid}/fight", {"action": "step"})
    assert r.status_code in (303, 409), r.text
    page = gm.get(f"/scenes/{t.sid}").text
    assert re.search(r"Round [1-9]", page)
    player = t.alice.get(f"/scenes/{t.sid}").text
    assert "Fight tracker" in player  # fights are public to the campaign (the API's ruling)
    assert "Forecast" not in player and "Play the next round" not in player
    assert gm.post(f"/scenes/{t.sid}/fight", {"action": "end"}).status_code == 303
    assert "Start a fight" in gm.get(f"/scenes/{t.sid}").text


def test_gm_acts_for_a_tardy_character_and_keeps_notes(table):
    gm = table.gm
    assert (
        gm.post(f"/scenes/{table.sid}/posts", {"kind": "ic", "text": "Night falls.", "action": "post"}).status_code
        == 303
    )
    r = gm.post(
        f"/scenes/{table.sid}/posts",
        {"kind": "ic", "character": table.chars["Bobo"], "text": "Bobo dozes off.", "action": "post"},
    )
    assert r.status_code == 303
    page = gm.get(f"/scenes/{table.sid}").text
    assert "Narration" in page and "Bobo dozes off." in page
    assert (
        gm.post(f"/campaigns/{table.cid}/notes", {"text": "the key is cursed", "back": f"/scenes/{table.sid}#gm"})
        .headers["location"]
        .startswith(f"/scenes/{table.sid}")
    )
    assert "the key is cursed" in gm.get(f"/scenes/{table.sid}").text
    assert (
        "the key is cursed"
        not in table.alice.get(f"/scenes/{table.sid}").text + table.alice.get(f"/campaigns/{table.cid}").text
    )
    # a post preview shows the text and the odds without posting
    r = gm.post(
        f"/scenes/{table.sid}/posts",
        {"kind": "ooc", "text": "Draft words", "roll_kind": "dice", "dice": "3d6", "action": "preview"},
    )
    assert r.status_code == 200 and "Draft words" in r.text and "<svg" in r.text
    assert "Draft words" not in gm.get(f"/scenes/{table.sid}/story").text
    assert gm.post(f"/scenes/{table.sid}/close", {"confirm": "yes"}).status_code == 303
    closed = table.bob.get(f"/scenes/{table.sid}").text
    assert 'id="seed"' in closed and 'id="compose"' not in closed


def test_bum_character_card(app):
    t = build_table(app, system="bum")
    r = t.alice.get(f"/campaigns/{t.cid}/characters/{t.chars['Alis']}")
    assert r.status_code == 200 and "B.U.M. card" in r.text and "Skill points" in r.text
    card = t.alice.get(f"/campaigns/{t.cid}/characters/{t.chars['Alis']}/card")
    assert card.status_code == 200 and "Alis" in card.text
    assert t.outsider.get(f"/campaigns/{t.cid}/characters/{t.chars['Alis']}/card").status_code == 403


@pytest.mark.parametrize("system", ["blyss", "kalyr"])
def test_every_system_builds_from_its_starter(app, system):
    t = build_table(app, system=system)
    page = t.bob.get(f"/campaigns/{t.cid}/characters/{t.chars['Bobo']}")
    assert page.status_code == 200 and "Bobo" in page.text


def test_edit_and_delete_posts(table):
    alice, bob, gm = table.alice, table.bob, table.gm
    assert gm.post(f"/scenes/{table.sid}/posts", {"kind": "ic", "text": "Dawn.", "action": "post"}).status_code == 303
    r = alice.post(f"/scenes/{table.sid}/posts", {"kind": "ooc", "text": "typo hree", "action": "post"})
    pid = int(r.headers["location"].rsplit("-", 1)[1])
    assert bob.post(f"/scenes/{table.sid}/posts/{pid}/edit", {"text": "vandal"}).status_code == 403
    assert bob.post(f"/scenes/{table.sid}/posts/{pid}/delete").status_code == 403
    assert alice.post(f"/scenes/{table.sid}/posts/{pid}/edit", {"text": "typo here"}).status_code == 303
    story = bob.get(f"/scenes/{table.sid}/story").text
    assert "typo here" in story and "edited" in story and "Edit or delete" not in story
    assert alice.post(f"/scenes/{table.sid}/posts/{pid}/delete").status_code == 303
    assert "[deleted]" in bob.get(f"/scenes/{table.sid}/story").text
    assert "typo here" not in bob.get(f"/scenes/{table.sid}/story").text
    assert "typo here" in gm.get(f"/scenes/{table.sid}/story").text  # the GM still reads a deleted post


def test_scene_settings(table):
    gm = table.gm
    r = gm.post(
        f"/scenes/{table.sid}/settings",
        {"title": "At the inn", "mode": "free", "cast": [table.chars["Alis"]], "turn_hours": ""},
    )
    assert r.status_code == 303, r.text
    page = gm.get(f"/scenes/{table.sid}").text
    assert "At the inn" in page and 'id="turn"' not in page
    assert table.alice.post(f"/scenes/{table.sid}/settings", {"title": "mine", "mode": "free"}).status_code == 403
    assert gm.post(f"/scenes/{table.sid}/settings", {"title": "", "mode": "free"}).status_code == 422
    assert (
        gm.post(f"/scenes/{table.sid}/settings", {"title": "x", "mode": "turn", "turn_hours": "1e400"}).status_code
        == 422
    )
