"""Who may read and change a character's condition and experience: every living route, every role.

Roles, in column order: anonymous, outsider (logged in, not a member), observer, the character's owner,
another player, the GM. The policy (docs/table.md, "Characters live at the table"): members read a
character's condition and sheet; only the GM sets values by hand, applies a rule to several characters,
awards experience, or applies a rule the book gives the GM (a wound, healing); the owner may use the
actions the system leaves to the player (Kalyr: spending a Fudge point) and spend experience.
"""

from __future__ import annotations

from typing import Any

from living.livekit import Live, build_live, example
from web.apikit import User, make_user

ROLES = ("anonymous", "outsider", "observer", "owner", "other player", "gm")
MEMBERS = (401, 403, 200, 200, 200, 200)
GM_ONLY = (401, 403, 403, 403, 403, 200)


def _people(t: Live) -> dict[str, User | None]:
    outsider, observer = make_user(t.client), make_user(t.client)
    r = t.client.post(
        f"/api/campaigns/{t.campaign}/members", json={"user": observer.name, "role": "observer"}, headers=t.gm.h
    )
    assert r.status_code == 201, r.text
    return {
        "anonymous": None,
        "outsider": outsider,
        "observer": observer,
        "owner": t.p1,
        "other player": t.p2,
        "gm": t.gm,
    }


def _statuses(t: Live, people: dict[str, User | None], method: str, path: str, body: Any) -> tuple[int, ...]:
    got = []
    for role in ROLES:
        who = people[role]
        r = t.client.request(method, path, json=body, headers=who.h if who else {})
        if r.status_code >= 400:
            assert r.headers["content-type"] == "application/problem+json", (path, role, r.text)
        got.append(r.status_code)
    return tuple(got)


def test_fuzzy_living_routes_by_role(client) -> None:
    t = build_live(client, "fuzzy", example("fuzzy", "sven"), example("fuzzy", "rincewind"))
    people = _people(t)
    ch = f"/api/campaigns/{t.campaign}/characters/{t.a}"
    wound = {"action": "wound", "level": "moderate", "tenacity": True, "by": "a fall"}
    cases = {
        "read condition": ("GET", ch + "/condition", None, MEMBERS),
        "read living sheet": ("GET", ch + "/sheet", None, MEMBERS),
        "set by hand": ("POST", ch + "/condition", {"values": {"status": "incapacitated"}, "reason": "r"}, GM_ONLY),
        "a wound (the GM's rule)": ("POST", ch + "/actions", {"request": wound, "reason": "a fall"}, GM_ONLY),
        "a wound, in the scene": (
            "POST",
            f"/api/scenes/{t.scene}/characters/{t.a}/actions",
            {"request": wound, "reason": "r"},
            GM_ONLY,
        ),
        "everyone at once": (
            "POST",
            f"/api/campaigns/{t.campaign}/actions",
            {"request": wound, "characters": [t.a]},
            GM_ONLY,
        ),
        "award experience": ("POST", ch + "/advance", {"request": {"action": "award", "points": 5}}, GM_ONLY),
    }
    wrong = {}
    for name, (method, path, body, expected) in cases.items():
        got = _statuses(t, people, method, path, body)
        if got != expected:
            wrong[name] = dict(zip(ROLES, zip(got, expected, strict=True), strict=True))
    assert not wrong, wrong


def test_kalyr_owner_spends_a_fudge_point_others_may_not(client) -> None:
    t = build_live(client, "kalyr", example("kalyr", "kylar"), example("kalyr", "bandit"))
    people = _people(t)
    path = f"/api/campaigns/{t.campaign}/characters/{t.a}/actions"
    before = t.condition(t.a)
    got = _statuses(
        t, people, "POST", path, {"request": {"action": "spend_fudge", "use": "story"}, "reason": "a lucky break"}
    )
    # Kylar has one Fudge point (examples/kalyr/kylar.yaml): the owner spends it; the GM, who may do anything
    # the player may, finds none left (a 422 saying so, not a 403)
    assert got == (401, 403, 403, 200, 403, 422), got
    assert before["condition"]["fudge_points"] == 1 and t.condition(t.a)["condition"]["fudge_points"] == 0
