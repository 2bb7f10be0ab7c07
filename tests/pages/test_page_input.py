"""Bad input on every form: a clear message and a 4xx page, never a 500."""

from __future__ import annotations

import json
import re

import pytest
from pages.pagekit import Table, form_values


def test_sign_up_and_in_errors(app, table):
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        r = c.post("/signup", data={"name": "x", "password": "short"})
        assert r.status_code == 422 and "password" in r.text
        r = c.post("/signup", data={"name": "alice", "password": "long enough pw"})
        assert r.status_code in (409, 422) and 'class="alert"' in r.text
        r = c.post("/login", data={"name": "alice", "password": "wrong password"})
        assert r.status_code == 401 and "Wrong name or password" in r.text
        r = c.post(
            "/login",
            data={"name": "alice", "password": "correct horse battery", "next": "//evil.example"},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == "/campaigns"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "ooc", "text": "x", "roll_kind": "dice", "dice": "2d", "action": "post"}, "dice"),
        ({"kind": "ooc", "text": "x", "roll_kind": "dice", "dice": "", "action": "post"}, "write the dice"),
        ({"kind": "ooc", "text": "x", "roll_kind": "check", "check_type": "nonsense", "action": "post"}, "nonsense"),
        (
            {
                "kind": "ooc",
                "text": "x",
                "roll_kind": "check",
                "check_type": "ability",
                "chk.ability.dice": "many",
                "chk.ability.target": "average",
                "action": "post",
            },
            "dice",
        ),
        ({"kind": "private", "text": "x", "action": "post"}, "who reads"),
        ({"kind": "shout", "text": "x", "action": "post"}, "kind"),
        ({"kind": "ic", "text": "x", "character": "abc", "action": "post"}, "whole number"),
        ({"kind": "ic", "text": "x", "character": "99999999999", "action": "post"}, "out of range"),
        ({"kind": "ooc", "text": "x" * 20_001, "action": "post"}, "text"),
    ],
)
def test_bad_posts(table: Table, data, message):
    r = table.alice.post(f"/scenes/{table.sid}/posts", data)
    assert 400 <= r.status_code < 500, r.status_code
    assert message.lower() in r.text.lower()
    assert 'role="alert"' in r.text


def test_bad_odds_preview(table):
    r = table.alice.post(
        f"/scenes/{table.sid}/preview", {"roll_kind": "dice", "dice": "banana"}, headers={"Accept": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"]
    r = table.alice.post(f"/scenes/{table.sid}/preview", {"roll_kind": "none"})
    assert r.status_code == 422
    r = table.alice.post(f"/scenes/{table.sid}/preview", {"roll_kind": "dice", "dice": "3d6"})
    assert r.status_code == 200 and "<svg" in r.text


def test_builder_shows_problems_not_errors(table):
    """Wrong values in the builder's controls: the page again, each problem at its field in plain words."""
    url = f"/campaigns/{table.cid}/characters"
    base = form_values(table.alice.get(url + "/new").text)
    for change, field, words in [
        ({"f.name": ""}, "f.name", "required"),
        ({"f.required.body": "lots"}, "f.required.body", "whole number"),
        ({"f.required.body": "0"}, "f.required.body", ""),
    ]:
        data = {**base, **change}
        for r in (table.alice.post(url + "/check", data), table.alice.post(url, data)):
            assert r.status_code in (200, 422), r.status_code
            held = re.search(rf'id="{re.escape(forms_id(field))}-problem"[^>]*>(.{{0,300}})', r.text, re.S)
            assert held and words in held.group(1).lower(), (change, r.text[-3000:])
            assert 'aria-invalid="true"' in r.text
    r = table.alice.post(url + "/check", {**base, "f.required.body": "0"}, headers={"Accept": "application/json"})
    body = r.json()
    assert r.status_code == 200 and body["ok"] is False and body["problems"] and "Problems" in body["html"]
    assert "f.required.body" in body["field_problems"]


def forms_id(name: str) -> str:
    return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def test_gm_form_errors(table):
    gm = table.gm
    assert gm.post(f"/campaigns/{table.cid}/house-rules", {"house_rules": "- 1"}).status_code == 422
    assert gm.post(f"/campaigns/{table.cid}/house-rules", {"house_rules": "no_such_rule: 3"}).status_code == 422
    assert gm.post(f"/campaigns/{table.cid}/members", {"user": "nobody", "role": "player"}).status_code == 422
    assert gm.post(f"/campaigns/{table.cid}/scenes", {"title": "", "mode": "free"}).status_code == 422
    assert (
        gm.post(f"/campaigns/{table.cid}/scenes", {"title": "x", "mode": "turn", "turn_hours": "soon"}).status_code
        == 422
    )
    assert gm.post(f"/scenes/{table.sid}/fight", {"action": "dance"}).status_code == 422
    assert gm.post(f"/scenes/{table.sid}/fight", {"action": "start", "side1": table.chars["Alis"]}).status_code == 422
    assert gm.post("/campaigns", {"name": "x", "system": "no-such-system"}).status_code in (404, 422)
    assert gm.get("/scenes/9999").status_code == 404
    assert gm.get("/campaigns/9999").status_code == 404


def test_verify_page(table):
    gm = table.gm
    assert (
        gm.post(
            f"/scenes/{table.sid}/posts",
            {"kind": "ic", "text": "Go.", "roll_kind": "dice", "dice": "2d6", "action": "post"},
        ).status_code
        == 303
    )
    assert gm.post(f"/scenes/{table.sid}/close", {"confirm": "yes"}).status_code == 303
    export = gm.client.get(f"/api/scenes/{table.sid}/export.json").text
    r = gm.post("/verify", {"export": export})
    assert r.status_code == 200 and 'id="verified"' in r.text
    r = gm.client.post(
        "/verify", data={"csrf": gm.csrf}, files={"file": ("scene.json", export.encode(), "application/json")}
    )
    assert r.status_code == 200 and 'id="verified"' in r.text
    doc = json.loads(export)
    doc["scenes"][0]["log"][1]["at"] = "2000-01-01T00:00:00+00:00"
    r = gm.post("/verify", {"export": json.dumps(doc)})
    assert r.status_code == 422 and "entry" in r.text and "Not verified" in r.text
    for junk in ("", "not json", "[]", '{"format": "other"}'):
        r = gm.post("/verify", {"export": junk})
        assert r.status_code == 422 and 'role="alert"' in r.text, junk


def test_builder_form_controls_round_trip(table):

    url = f"/campaigns/{table.cid}/characters/{table.chars['Alis']}/edit"
    data = form_values(table.alice.get(url).text)
    assert data["f.name"] == "Alis" and data["f.required.body"] == "4"
    data["f.required.body"] = "0"
    r = table.alice.post(f"/campaigns/{table.cid}/characters/check", data, headers={"Accept": "application/json"})
    assert r.json()["ok"] is False and any(p["where"] == "required.body" for p in r.json()["problems"])
    data["f.required.body"] = "lots"
    r = table.alice.post(f"/campaigns/{table.cid}/characters", data)
    assert r.status_code == 422 and "whole number" in r.text
    data["f.required.body"] = "5"
    r = table.alice.post(f"/campaigns/{table.cid}/characters", data)
    assert r.status_code == 303
    sheet = table.alice.client.get(f"/api/campaigns/{table.cid}/characters/{table.chars['Alis']}").json()
    assert sheet["sheet"]["required"]["body"] == 5 and sheet["version"] == 2
    assert table.observer.get(f"/campaigns/{table.cid}/characters/new").status_code == 403


def test_check_with_form_controls(table):
    """A system check from the composer's controls: odds before, the outcome after."""
    data = {
        "roll_kind": "check",
        "check_type": "ability",
        "chk.ability.dice": "3",
        "chk.ability.target": "2",
        "roll_label": "climb",
    }
    r = table.alice.post(f"/scenes/{table.sid}/preview", data)
    assert r.status_code == 200 and "<svg" in r.text and "Exact chances" in r.text
    r = table.alice.post(f"/scenes/{table.sid}/preview", {**data, "chk.ability.dice": "many"})
    assert r.status_code == 422 and "dice" in r.text
    r = table.alice.post(f"/scenes/{table.sid}/posts", {**data, "kind": "ooc", "text": "Climbing.", "action": "post"})
    assert r.status_code == 303, r.text
    story = table.bob.get(f"/scenes/{table.sid}/story").text
    assert "climb" in story and "ability check" in story and ("success" in story or "failure" in story)
