"""The authorisation matrix: every route, called by every role, answers the expected status.

Roles, in column order: anonymous, outsider (logged in, not a member), observer,
player (the owner of the post or character at hand), other player, GM.
Resources a call changes are made fresh for each call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from play.kit import unique
from web.apikit import Table, make_user

ROLES = ("anonymous", "outsider", "observer", "player", "other player", "gm")


def _who(t: Table, role: str):
    return {
        "anonymous": None,
        "outsider": t.outsider,
        "observer": t.obs,
        "player": t.p1,
        "other player": t.p2,
        "gm": t.gm,
    }[role]


def fresh_post(t: Table, **kw: Any) -> int:
    body = {"kind": "ooc", "text": "a post"} | kw
    return t.post(t.p1, **body)["id"]


def fresh_invite(t: Table) -> int:
    r = t.client.post(f"/api/campaigns/{t.campaign}/invites", json={"role": "player"}, headers=t.gm.h)
    return r.json()["id"]


def fresh_member(t: Table) -> int:
    u = make_user(t.client, unique("m"))
    r = t.client.post(f"/api/campaigns/{t.campaign}/members", json={"user": u.name, "role": "observer"}, headers=t.gm.h)
    assert r.status_code == 201
    return u.id


def fight_scene(t: Table, started: bool) -> int:
    sid = t.open_scene(cast=[t.c1, t.c2])
    if started:
        r = t.client.post(f"/api/scenes/{sid}/combat", json={"sides": [[t.c1], [t.c2]]}, headers=t.gm.h)
        assert r.status_code == 201, r.text
    return sid


Case = tuple[str, str, Callable[[Table], str], Callable[[Table], Any], tuple[int, ...]]
C, S = "/api/campaigns", "/api/scenes"
MEMBERS = (401, 403, 200, 200, 200, 200)
GM_ONLY = (401, 403, 403, 403, 403, 200)

CASES: list[Case] = [
    ("GET", "systems", lambda t: "/api/systems", lambda t: None, (200,) * 6),
    ("GET", "health", lambda t: "/api/health", lambda t: None, (200,) * 6),
    ("GET", "me", lambda t: "/api/me", lambda t: None, (401,) + (200,) * 5),
    ("GET", "my turns", lambda t: "/api/me/turns", lambda t: None, (401,) + (200,) * 5),
    ("GET", "my scenes", lambda t: "/api/me/scenes", lambda t: None, (401,) + (200,) * 5),
    ("GET", "my digest", lambda t: "/api/me/digest", lambda t: None, (401,) + (200,) * 5),
    ("POST", "send my digest (no SMTP here)", lambda t: "/api/me/digest", lambda t: None, (401,) + (503,) * 5),
    ("PUT", "my e-mail", lambda t: "/api/me/email", lambda t: {"email": "a@example.org"}, (401,) + (200,) * 5),
    (
        "POST",
        "confirm my e-mail (a token nobody was sent)",
        lambda t: "/api/me/email/confirm",
        lambda t: {"token": "not-a-token"},
        (401,) + (404,) * 5,
    ),
    ("GET", "my settings", lambda t: "/api/me/settings", lambda t: None, (401,) + (200,) * 5),
    ("PATCH", "my settings", lambda t: "/api/me/settings", lambda t: {"digest": "turns"}, (401,) + (200,) * 5),
    ("GET", "tokens", lambda t: "/api/tokens", lambda t: None, (401,) + (200,) * 5),
    # a portrait of the first player's character: members see it (none yet: 404); its owner or the GM upload
    # (a JSON body is no image: 422) or remove it
    (
        "GET",
        "portrait",
        lambda t: f"{C}/{t.campaign}/characters/{t.c1}/portrait",
        lambda t: None,
        (401, 403) + (404,) * 4,
    ),
    (
        "PUT",
        "portrait (not an image)",
        lambda t: f"{C}/{t.campaign}/characters/{t.c1}/portrait",
        lambda t: {"x": 1},
        (401, 403, 403, 422, 403, 422),
    ),
    (
        "DELETE",
        "portrait (none yet)",
        lambda t: f"{C}/{t.campaign}/characters/{t.c1}/portrait",
        lambda t: None,
        (401, 403, 403, 404, 403, 404),
    ),
    ("POST", "new token", lambda t: "/api/tokens", lambda t: {"name": "bot"}, (401,) + (201,) * 5),
    (
        "DELETE",
        "someone else's token",
        lambda t: f"/api/tokens/{t.extra['gm_token_id']}",
        lambda t: None,
        (401, 404, 404, 404, 404, 204),
    ),
    ("GET", "my campaigns", lambda t: C, lambda t: None, (401,) + (200,) * 5),
    ("POST", "new campaign", lambda t: C, lambda t: {"name": "x", "system": "tally"}, (401,) + (201,) * 5),
    ("GET", "campaign", lambda t: f"{C}/{t.campaign}", lambda t: None, MEMBERS),
    ("PUT", "house rules", lambda t: f"{C}/{t.campaign}/house-rules", lambda t: {"house_rules": {"bonus": 1}}, GM_ONLY),
    ("GET", "members", lambda t: f"{C}/{t.campaign}/members", lambda t: None, MEMBERS),
    (
        "POST",
        "add member",
        lambda t: f"{C}/{t.campaign}/members",
        lambda t: {"user": make_user(t.client).name, "role": "player"},
        (401, 403, 403, 403, 403, 201),
    ),
    (
        "DELETE",
        "remove member",
        lambda t: f"{C}/{t.campaign}/members/{fresh_member(t)}",
        lambda t: None,
        (401, 403, 403, 403, 403, 204),
    ),
    ("GET", "notes", lambda t: f"{C}/{t.campaign}/notes", lambda t: None, GM_ONLY),
    (
        "POST",
        "write note",
        lambda t: f"{C}/{t.campaign}/notes",
        lambda t: {"text": "the innkeeper lies"},
        (401, 403, 403, 403, 403, 201),
    ),
    ("GET", "characters", lambda t: f"{C}/{t.campaign}/characters", lambda t: None, MEMBERS),
    (
        "POST",
        "new character",
        lambda t: f"{C}/{t.campaign}/characters",
        lambda t: {"sheet": {"name": "Cor"}},
        (401, 403, 403, 201, 201, 201),
    ),
    ("GET", "character", lambda t: f"{C}/{t.campaign}/characters/{t.c1}", lambda t: None, MEMBERS),
    (
        "PUT",
        "edit character",
        lambda t: f"{C}/{t.campaign}/characters/{t.c1}",
        lambda t: {"sheet": {"name": "Arn", "skill": 3}},
        (401, 403, 403, 200, 403, 200),
    ),
    ("GET", "scenes", lambda t: f"{C}/{t.campaign}/scenes", lambda t: None, MEMBERS),
    (
        "POST",
        "open scene",
        lambda t: f"{C}/{t.campaign}/scenes",
        lambda t: {"title": "Dawn"},
        (401, 403, 403, 403, 403, 201),
    ),
    ("GET", "scene", lambda t: f"{S}/{t.scene}", lambda t: None, MEMBERS),
    ("PATCH", "change scene", lambda t: f"{S}/{t.scene}", lambda t: {"title": "At the Inn, later"}, GM_ONLY),
    ("POST", "close scene", lambda t: f"{S}/{t.open_scene()}/close", lambda t: None, GM_ONLY),
    ("GET", "scene log", lambda t: f"{S}/{t.scene}/log", lambda t: None, MEMBERS),
    ("GET", "posts", lambda t: f"{S}/{t.scene}/posts", lambda t: None, MEMBERS),
    (
        "POST",
        "post",
        lambda t: f"{S}/{t.scene}/posts",
        lambda t: {"kind": "ooc", "text": "hi", "rolls": [{"dice": "d6"}]},
        (401, 403, 403, 201, 201, 201),
    ),
    (
        "POST",
        "preview",
        lambda t: f"{S}/{t.scene}/preview",
        lambda t: {"check": {"type": "skill", "skill": 1}},
        MEMBERS,
    ),
    ("POST", "inline odds", lambda t: f"{S}/{t.scene}/inline-odds", lambda t: {"text": "[[2d6+3]]"}, MEMBERS),
    ("GET", "public post", lambda t: f"{S}/{t.scene}/posts/{fresh_post(t)}", lambda t: None, MEMBERS),
    (
        "GET",
        "private post to the GM",
        lambda t: f"{S}/{t.scene}/posts/{fresh_post(t, kind='private', to=[t.gm.id])}",
        lambda t: None,
        (401, 403, 404, 200, 404, 200),
    ),
    (
        "GET",
        "GM note in a scene",
        lambda t: f"{S}/{t.scene}/posts/{t.post(t.gm, kind='note', text='secret')['id']}",
        lambda t: None,
        (401, 403, 404, 404, 404, 200),
    ),
    (
        "PATCH",
        "edit post",
        lambda t: f"{S}/{t.scene}/posts/{fresh_post(t)}",
        lambda t: {"text": "better words"},
        (401, 403, 403, 200, 403, 403),
    ),
    (
        "DELETE",
        "delete post",
        lambda t: f"{S}/{t.scene}/posts/{fresh_post(t)}",
        lambda t: None,
        (401, 403, 403, 204, 403, 204),
    ),
    ("GET", "invitations", lambda t: f"{C}/{t.campaign}/invites", lambda t: None, GM_ONLY),
    (
        "POST",
        "make invitation",
        lambda t: f"{C}/{t.campaign}/invites",
        lambda t: {"role": "observer"},
        (401, 403, 403, 403, 403, 201),
    ),
    (
        "DELETE",
        "revoke invitation",
        lambda t: f"{C}/{t.campaign}/invites/{fresh_invite(t)}",
        lambda t: None,
        (401, 403, 403, 403, 403, 204),
    ),
    ("GET", "scene export json", lambda t: f"{S}/{t.scene}/export.json", lambda t: None, MEMBERS),
    ("GET", "scene export md", lambda t: f"{S}/{t.scene}/export.md", lambda t: None, MEMBERS),
    ("GET", "campaign export html", lambda t: f"{C}/{t.campaign}/export.html", lambda t: None, MEMBERS),
    ("GET", "atom feed", lambda t: f"{S}/{t.scene}/feed.atom", lambda t: None, MEMBERS),
    ("GET", "live events", lambda t: f"{S}/{t.scene}/events?max_seconds=0.05", lambda t: None, MEMBERS),
    (
        "POST",
        "start fight",
        lambda t: f"{S}/{fight_scene(t, False)}/combat",
        lambda t: {"sides": [[t.c1], [t.c2]]},
        (401, 403, 403, 403, 403, 201),
    ),
    ("POST", "fight round", lambda t: f"{S}/{fight_scene(t, True)}/combat/step", lambda t: None, GM_ONLY),
    ("DELETE", "end fight", lambda t: f"{S}/{fight_scene(t, True)}/combat", lambda t: None, GM_ONLY),
]


def test_every_route_is_in_the_matrix(app) -> None:
    documented = {(m.upper(), p) for p, ops in app.openapi()["paths"].items() for m in ops}
    exercised = {  # public or account routes, tested elsewhere
        "/api/systems/{name}",
        "/api/users",
        "/api/session",
        "/.well-known/storymaster-key",
        "/api/campaigns/{cid}/join",  # joining by a link: tests/web/test_trust.py
        "/api/me/password",  # the account's own: tests/web/test_trust_accounts.py
        "/api/me/sessions",
        # the living character (a system with a condition): tests/living/test_living_roles.py
        "/api/campaigns/{cid}/actions",
        "/api/campaigns/{cid}/characters/{char_id}/actions",
        "/api/campaigns/{cid}/characters/{char_id}/condition",
        "/api/campaigns/{cid}/characters/{char_id}/sheet",
        "/api/campaigns/{cid}/characters/{char_id}/advance",
        "/api/scenes/{sid}/characters/{char_id}/actions",
        "/api/scenes/{sid}/characters/{char_id}/advance",
    }
    templates = {
        "/api/me",
        "/api/me/turns",
        "/api/me/scenes",
        "/api/me/digest",
        "/api/me/email",
        "/api/me/email/confirm",
        "/api/me/settings",
        "/api/tokens",
        "/api/tokens/{token_id}",
        "/api/campaigns",
        "/api/campaigns/{cid}",
        "/api/campaigns/{cid}/house-rules",
        "/api/campaigns/{cid}/members",
        "/api/campaigns/{cid}/members/{uid}",
        "/api/campaigns/{cid}/notes",
        "/api/campaigns/{cid}/invites",
        "/api/campaigns/{cid}/invites/{iid}",
        "/api/campaigns/{cid}/characters",
        "/api/campaigns/{cid}/characters/{char_id}",
        "/api/campaigns/{cid}/characters/{char_id}/portrait",
        "/api/campaigns/{cid}/scenes",
        "/api/scenes/{sid}",
        "/api/scenes/{sid}/close",
        "/api/scenes/{sid}/log",
        "/api/scenes/{sid}/posts",
        "/api/scenes/{sid}/preview",
        "/api/scenes/{sid}/inline-odds",
        "/api/scenes/{sid}/posts/{pid}",
        "/api/scenes/{sid}/export.{fmt}",
        "/api/campaigns/{cid}/export.{fmt}",
        "/api/scenes/{sid}/feed.atom",
        "/api/scenes/{sid}/events",
        "/api/scenes/{sid}/combat",
        "/api/scenes/{sid}/combat/step",
        "/api/systems",
        "/api/health",
    }
    assert {p for _, p in documented} <= templates | exercised, sorted(
        {p for _, p in documented} - templates - exercised
    )


def test_matrix(table: Table) -> None:
    """One table, every route, every role; all mismatches reported together."""
    t = table
    wrong = {}
    for method, name, path, body, expected in CASES:
        got = []
        for role in ROLES:
            if name == "someone else's token":  # a token of the GM's, made fresh for each caller
                t.extra["gm_token_id"] = t.client.post("/api/tokens", json={"name": "victim"}, headers=t.gm.h).json()[
                    "id"
                ]
            who = _who(t, role)
            r = t.client.request(method, path(t), json=body(t), headers=who.h if who else {})
            if r.status_code >= 400:
                assert r.headers["content-type"] == "application/problem+json", (name, role, r.text)
                assert r.json()["status"] == r.status_code and r.json()["detail"], (name, role, r.text)
            got.append(r.status_code)
        if tuple(got) != expected:
            wrong[f"{method} {name}"] = {
                role: (g, e) for role, g, e in zip(ROLES, got, expected, strict=True) if g != e
            }
    assert not wrong, wrong
