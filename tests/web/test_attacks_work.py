"""Issue 16.3 / 17: no small request can hold the server. Each attack is sent as a member would send it; it
answers 4xx (or completes) and, while it is in flight, /api/health on the same event loop keeps answering.
On SQLite and on PostgreSQL. (How fast health answers under each attack is measured in bench/table_speed.py,
not here: timings do not belong in unit tests.)"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pages.pagekit import Person, csrf_of, form_values
from play.kit import unique
from web import workkit

from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}
BUDGET = 3.0

#: "a billion laughs": 9 levels of 9 aliases, 341 bytes standing for 9^9 (387 million) strings (the issue's had 419)
BOMB = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True)),
    ]
)


def _person(app, name: str, **settings) -> Person:
    client = TestClient(app, raise_server_exceptions=False)
    client.__enter__()
    r = client.post("/signup", data={"name": name, "password": "correct horse battery", "next": "/campaigns"})
    assert r.status_code in (200, 303), r.text
    p = Person(name, client, csrf_of(client.get("/campaigns").text))
    return p


@pytest.fixture
def app(db_url):
    return create_app(Settings(database_url=db_url, work_seconds=BUDGET, **FAST_ARGON2))


@pytest.fixture
def duel(app):
    """A BLYSS campaign: the GM, a player, two characters from the builder's starter sheet, a scene."""
    gm, alice = _person(app, unique("gm")), _person(app, unique("alice"))
    r = gm.post("/campaigns", {"name": "Duel", "system": "blyss"})
    cid = int(r.headers["location"].rsplit("/", 1)[1])
    assert gm.post(f"/campaigns/{cid}/members", {"user": alice.name, "role": "player"}).status_code == 303
    chars = []
    for p, who in ((alice, "Alis"), (gm, "Bobo")):
        data = form_values(p.get(f"/campaigns/{cid}/characters/new").text)
        data["name"] = who
        r = p.post(f"/campaigns/{cid}/characters", data)
        assert r.status_code == 303, r.text
        chars.append(int(r.headers["location"].rsplit("/", 1)[1]))
    r = gm.post(f"/campaigns/{cid}/scenes", {"title": "At the gate", "mode": "free", "cast": chars})
    sid = int(r.headers["location"].rsplit("/", 1)[1])
    yield {"gm": gm, "alice": alice, "cid": cid, "sid": sid, "chars": chars}
    for p in (gm, alice):
        p.client.__exit__(None, None, None)


def _held(person: Person, send) -> object:
    """The attack's response; every health probe sent while it was in flight answered 200, and when the attack
    took long enough for a probe to overlap it, at least one probe was answered before the attack was."""
    r, probes, sent, answered = workkit.while_in_flight(person.client, send)
    assert probes and all(status == 200 for *_, status in probes)
    if answered - sent > 1.0:
        assert any(done < answered for _, done, _ in probes), "health waited for the attack"
    assert answered - sent < BUDGET + 30  # bounded by the budget (plus a loaded box's slack), not by the attack
    return r


def test_the_yaml_bomb_is_refused_at_every_yaml_door(duel) -> None:
    assert len(BOMB.encode()) <= 419
    gm, alice, cid, sid = duel["gm"], duel["alice"], duel["cid"], duel["sid"]
    # the YAML doors of the pages today: the house rules (the builder and the composer's checks are forms of
    # fields now, with no YAML box); the bomb sent to the others as a field is refused or ignored, never run
    doors = [
        (gm, f"/campaigns/{cid}/house-rules", {"house_rules": BOMB}, True),
        (alice, f"/scenes/{sid}/preview", {"roll_kind": "check", "check_type": "pool", "check_fields": BOMB}, False),
        (alice, f"/campaigns/{cid}/characters/check", {"f.name": "Zed", "sheet": BOMB}, False),
    ]
    for person, url, data, yaml_door in doors:
        r = _held(person, lambda person=person, url=url, data=data: person.post(url, data))
        assert r.status_code < 500, (url, r.status_code)
        if yaml_door:
            assert r.status_code == 422 and "anchors (&amp;a) are not accepted" in r.text, (url, r.text[:500])
    # nothing was stored
    assert "lol" not in gm.get(f"/campaigns/{cid}").text


HUGE = ["599d6kh1", "1000d6kh1", "1000d100kh1+1000d100kl1", "1000d20kh999", "1000d1000kh500", "999d999", "2000d6"]


@pytest.mark.parametrize("expression", HUGE)
def test_huge_odds_previews_answer_within_the_budget(duel, expression) -> None:
    alice, sid = duel["alice"], duel["sid"]
    api = _held(
        alice,
        lambda: alice.client.post(
            f"/api/scenes/{sid}/preview", json={"dice": expression}, headers={"X-CSRF-Token": alice.csrf}
        ),
    )
    assert api.status_code in (200, 422), api.text
    if api.status_code == 422:
        body = api.json()
        assert body["detail"] and body["hint"]  # too-much-work or the odds' own refusal, each with a tip
    page = _held(alice, lambda: alice.post(f"/scenes/{sid}/preview", {"roll_kind": "dice", "dice": expression}))
    assert page.status_code in (200, 422), page.text  # near the budget, one may finish and the other not
    if page.status_code == 422:
        assert 'role="alert"' in page.text and "Tip:" in page.text


def test_the_gm_page_forecast_is_simulated_cached_and_exact_on_request(app, duel) -> None:
    gm, sid, chars = duel["gm"], duel["sid"], duel["chars"]
    r = gm.post(f"/scenes/{sid}/fight", {"action": "start", "side1": chars[0], "side2": chars[1]})
    assert r.status_code == 303, r.text
    page = _held(gm, lambda: gm.get(f"/scenes/{sid}"))
    assert page.status_code == 200
    assert "simulated forecast (1000 simulated fights, each figure within" in page.text
    assert f'href="/scenes/{sid}?forecast=exact#gm"' in page.text
    cache = app.state.forecasts
    assert len(cache._items) == 1
    assert gm.get(f"/scenes/{sid}").status_code == 200 and len(cache._items) == 1  # the same log head: kept
    exact = _held(gm, lambda: gm.get(f"/scenes/{sid}?forecast=exact"))
    assert exact.status_code == 200
    assert "exact forecast" in exact.text or "No forecast:" in exact.text
    assert len(cache._items) == 2
    assert gm.post(f"/scenes/{sid}/fight", {"action": "step"}).status_code in (303, 409)
    gm.get(f"/scenes/{sid}")
    assert len(cache._items) == 3  # a new log head: a new forecast


def test_a_large_export_and_sign_in_leave_the_table_answering(duel, db_url) -> None:
    alice, sid = duel["alice"], duel["sid"]
    text = "The rain keeps falling on the old road. " * 400  # 16 KB a post
    for _ in range(60):
        r = alice.client.post(
            f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": text}, headers={"X-CSRF-Token": alice.csrf}
        )
        assert r.status_code == 201, r.text
    export = _held(alice, lambda: alice.client.get(f"/api/scenes/{sid}/export.json"))
    assert export.status_code == 200 and len(export.content) > 60 * 16_000
    # sign-in with the real argon2 costs (RFC 9106 low-memory profile, the server's defaults)
    real = create_app(Settings(database_url=db_url, work_seconds=BUDGET))
    p = _person(real, unique("slow"))
    p.client.cookies.clear()
    signed = _held(
        p,
        lambda: p.client.post(
            "/login",
            data={"name": p.name, "password": "correct horse battery", "next": "/campaigns"},
            follow_redirects=False,
        ),
    )
    assert signed.status_code == 303
    p.client.__exit__(None, None, None)
