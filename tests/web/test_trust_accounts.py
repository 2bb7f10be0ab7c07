"""Accounts (issue 16, point 6): throttled sign-in, password rules, one name however written, sessions, scopes."""

from __future__ import annotations

from play.kit import unique
from sqlalchemy import select
from web.apikit import Table, make_user

from storymaster.store import tables
from storymaster.web.accounts import FREE_FAILURES

PW = "correct horse battery"


def _login(client, name: str, password: str, **headers: str):
    return client.post("/api/session", json={"name": name, "password": password}, headers=headers)


def test_sign_in_is_throttled_per_name_with_growing_waits(client, clock) -> None:
    name = unique("alys")
    assert client.post("/api/users", json={"name": name, "password": PW}).status_code == 201
    codes = [_login(client, name, "wrong password").status_code for _ in range(FREE_FAILURES)]
    assert codes == [401] * FREE_FAILURES
    waits = []
    for _ in range(4):  # bounded: each failure past the free ones doubles the wait
        r = _login(client, name, PW)
        assert r.status_code == 429, r.text
        wait = int(r.headers["Retry-After"])
        waits.append(wait)
        clock.advance(seconds=wait)
        assert _login(client, name, "wrong again").status_code == 401
    assert waits == [1, 2, 4, 8]
    clock.advance(seconds=16)
    assert _login(client, name, PW).status_code == 200  # the right password, after the wait, resets it
    assert _login(client, name, "wrong").status_code == 401


def test_unknown_names_are_throttled_too_and_per_client(client, clock) -> None:
    for i in range(20):
        assert _login(client, unique(f"nobody{i}"), "whatever").status_code == 401
    r = _login(client, unique("someone"), "whatever")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_passwords_have_a_minimum_and_are_not_common(client) -> None:
    for bad in ("short", "password123", "Qwerty123", "iloveyou1"):
        r = client.post("/api/users", json={"name": unique("u"), "password": bad})
        assert r.status_code == 422, bad
    assert client.post("/api/users", json={"name": unique("u"), "password": PW}).status_code == 201


def test_a_name_is_one_name_however_written(client) -> None:
    base = unique("Alys")
    assert client.post("/api/users", json={"name": base, "password": PW}).status_code == 201
    for twin in (base.lower(), f" {base}", base.upper() + " "):
        r = client.post("/api/users", json={"name": twin, "password": PW})
        assert r.status_code == 409, twin
    assert _login(client, f"  {base.lower()}", PW).status_code == 200
    for sneaky in (base + "\u202e", "\u200b" + base, base[:2] + "\u2066" + base[2:]):
        r = client.post("/api/users", json={"name": sneaky, "password": PW})
        assert r.status_code == 422, repr(sneaky)


def test_character_names_refuse_direction_overrides_and_zero_width(table: Table) -> None:
    t = table
    for name in ("Arn\u202eevil", "A\u200brn"):
        r = t.client.post(
            f"/api/campaigns/{t.campaign}/characters", json={"sheet": {"name": name, "skill": 1}}, headers=t.p1.h
        )
        assert r.status_code == 422, name


def test_password_change_and_sign_out_everywhere(app, client, clock) -> None:
    u = make_user(client)
    a = _login(client, u.name, PW)
    cookie_a, csrf_a = client.cookies.get("storymaster_session"), a.json()["csrf"]
    client.cookies.clear()
    _login(client, u.name, PW)
    cookie_b = client.cookies.get("storymaster_session")
    client.cookies.clear()
    client.cookies.set("storymaster_session", cookie_a)
    r = client.put(
        "/api/me/password", json={"current": "not it", "new": "a new long phrase"}, headers={"X-CSRF-Token": csrf_a}
    )
    assert r.status_code == 403
    r = client.put(
        "/api/me/password", json={"current": PW, "new": "a new long phrase"}, headers={"X-CSRF-Token": csrf_a}
    )
    assert r.status_code == 204
    assert client.get("/api/me").status_code == 200  # this session stays
    client.cookies.clear()
    client.cookies.set("storymaster_session", cookie_b)
    assert client.get("/api/me").status_code == 401  # the other one was signed out
    client.cookies.clear()
    assert (
        _login(client, u.name, PW).status_code == 401 and _login(client, u.name, "a new long phrase").status_code == 200
    )
    csrf = client.post("/api/session", json={"name": u.name, "password": "a new long phrase"}).json()["csrf"]
    assert client.delete("/api/me/sessions", headers={"X-CSRF-Token": csrf}).status_code == 204
    with app.state.store.engine.connect() as conn:
        left = conn.execute(select(tables.sessions).where(tables.sessions.c.user_id == u.id)).all()
    assert left == []


def test_expired_sessions_are_cleaned(app, client, clock) -> None:
    u = make_user(client)
    _login(client, u.name, PW)
    client.cookies.clear()
    clock.advance(days=31)
    _login(client, u.name, PW)
    with app.state.store.engine.connect() as conn:
        rows = conn.execute(select(tables.sessions.c.expires_at).where(tables.sessions.c.user_id == u.id)).all()
    assert len(rows) == 1  # the expired ones went when someone signed in


def test_sign_in_and_up_refuse_another_sites_origin(client) -> None:
    evil = {"Origin": "https://evil.example"}
    name = unique("u")
    assert client.post("/api/users", json={"name": name, "password": PW}, headers=evil).status_code == 403
    assert client.post("/api/users", json={"name": name, "password": PW}).status_code == 201
    assert _login(client, name, PW, **evil).status_code == 403
    assert _login(client, name, PW, Origin="http://testserver").status_code == 200
    page = client.post("/login", data={"name": name, "password": PW}, headers=evil, follow_redirects=False)
    assert page.status_code == 401 and "storymaster_session" not in page.headers.get("set-cookie", "")


def test_a_read_scope_token_reads_and_does_nothing_more(table: Table) -> None:
    t = table
    r = t.client.post("/api/tokens", json={"name": "feed", "scope": "read"}, headers=t.p1.h)
    assert r.status_code == 201 and r.json()["scope"] == "read"
    feed = {"Authorization": f"Bearer {r.json()['token']}"}
    assert t.client.get(f"/api/scenes/{t.scene}/feed.atom", headers=feed).status_code == 200
    assert t.client.get(f"/api/scenes/{t.scene}/feed.atom?token={r.json()['token']}").status_code == 200
    assert t.client.get(f"/api/scenes/{t.scene}/posts", headers=feed).status_code == 200
    r = t.client.post(f"/api/scenes/{t.scene}/posts", json={"kind": "ooc", "text": "x"}, headers=feed)
    assert r.status_code == 403
    assert t.client.post("/api/tokens", json={"name": "more"}, headers=feed).status_code == 403
