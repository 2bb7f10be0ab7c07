"""Junk in, a clear 4xx problem out: never a 500, whatever is sent to whichever route."""

from __future__ import annotations

import re

from web.apikit import Table

JUNK_BODIES = [
    b"",
    b"not json",
    b"{",
    b"[]",
    b"null",
    b"123",
    b'"text"',
    b'{"kind": 5}',
    b'{"text": null, "rolls": "d6"}',
    b'{"rolls": [{"dice": "d0"}]}',
    b'{"rolls": [{"dice": "99999d99999"}]}',
    b'{"rolls": [{"check": {"type": "nope"}}]}',
    b'{"rolls": [{"check": {"type": "skill", "skill": "lots"}}]}',
    b'{"rolls": [{"dice": "d6", "check": {}}]}',
    b'{"sheet": {"name": "x", "skill": 9}}',
    b'{"sheet": []}',
    b'{"house_rules": {"bonus": 99}}',
    b'{"house_rules": {"nonsense": true}}',
    b'{"sides": [[999999], [1]]}',
    b'{"sides": [[1, 1], [1]]}',
    b'{"cast": [123456789]}',
    b'{"user": "nobody-at-all", "role": "player"}',
    b'{"user": "x", "role": "king"}',
    b'{"name": "", "system": "no-such-system"}',
    b'{"name": "x", "system": "no-such-system"}',
    b'{"dice": "1d6+"}',
    b'{"dice": "d6", "label": 7}',
    b'{"mode": "chaos"}',
    b'{"turn_seconds": -5}',
    b'{"to": ["everyone"]}',
    b'{"kind": "private", "text": "x", "to": [99999]}',
    b'{"kind": "ic", "text": "x", "character": 99999}',
    b'{"text": "' + b"x" * 30000 + b'"}',
    '{"text": "\u0000\ud800"}'.encode("utf-8", "surrogatepass"),
    b'{"email": "not an address"}',
    b'{"name": "a", "password": "short"}',
]
IDS = ["1", "0", "-1", "99999999", "99999999999999999999", "abc", "1.5", "%00", "..%2F..", "1;DROP%20TABLE%20users"]


def _requests(app, t: Table) -> list[tuple[str, str, list[bytes]]]:
    """Junk ids in every path (empty body), and junk bodies at every real path."""
    out = []
    for template, ops in app.openapi()["paths"].items():
        for method in ops:
            m = method.upper()
            for junk_id in IDS:
                out.append((m, re.sub(r"\{[a-z_]+\}", junk_id, template), [b""]))
            real = (
                template.replace("{cid}", str(t.campaign))
                .replace("{sid}", str(t.scene))
                .replace("{char_id}", str(t.c1))
            )
            real = (
                real.replace("{pid}", "1")
                .replace("{uid}", str(t.p1.id))
                .replace("{token_id}", "1")
                .replace("{fmt}", "json")
                .replace("{name}", "tally")
            )
            out.append((m, real, JUNK_BODIES if m in ("POST", "PUT", "PATCH") else [b""]))
    return out


def test_junk_never_makes_a_500(app, table: Table) -> None:
    t = table
    failures = []
    for method, path, bodies in _requests(app, t):
        if path.endswith("/events"):
            path += "?max_seconds=0.2"  # a live stream lasts until then (a test client never hangs up)
        for body in bodies:
            r = t.client.request(method, path, content=body, headers={**t.gm.h, "content-type": "application/json"})
            if (
                path == "/api/me/digest" and r.status_code == 503
            ):  # no SMTP server on this test app: a server condition, said plainly
                continue
            if r.status_code >= 500 or (
                r.status_code >= 400 and r.headers.get("content-type") != "application/problem+json"
            ):
                failures.append((method, path, body[:60], r.status_code, r.text[:200]))
    assert not failures, failures[:10]


def test_bad_auth_headers_are_401(client) -> None:
    for value in ("Bearer", "Bearer    ", "Basic abc", "Bearer nope", "x" * 1000):
        r = client.get("/api/me", headers={"Authorization": value})
        assert r.status_code == 401 and r.headers["content-type"] == "application/problem+json"


def test_too_large_bodies_are_413(table: Table) -> None:
    t = table
    big = b'{"kind": "ooc", "text": "' + b"x" * 300_000 + b'"}'
    r = t.client.post(
        f"/api/scenes/{t.scene}/posts", content=big, headers={**t.p1.h, "content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["status"] == 413

    def chunks():
        yield b'{"kind": "ooc", "text": "'
        for _ in range(40):
            yield b"y" * 10_000
        yield b'"}'

    r = t.client.post(
        f"/api/scenes/{t.scene}/posts", content=chunks(), headers={**t.p1.h, "content-type": "application/json"}
    )
    assert r.status_code == 413


def test_dice_errors_say_where(table: Table) -> None:
    t = table
    r = t.client.post(f"/api/scenes/{t.scene}/preview", json={"dice": "2d6+"}, headers=t.p1.h)
    assert r.status_code == 422 and "position" in r.json() and r.json()["expression"] == "2d6+"
    r = t.client.post(
        f"/api/campaigns/{t.campaign}/characters",
        json={"sheet": {"name": "Big", "skill": 3, "hp": "lots"}},
        headers=t.p1.h,
    )
    assert r.status_code == 422 and "hp" in r.json()["detail"]


def test_a_bug_in_a_rule_system_is_a_clear_422_not_a_500(table: Table) -> None:
    t = table
    for path, body in (
        (f"/api/scenes/{t.scene}/posts", {"kind": "ooc", "text": "x", "rolls": [{"check": {"type": "buggy"}}]}),
        (f"/api/scenes/{t.scene}/preview", {"check": {"type": "buggy"}}),
    ):
        r = t.client.post(path, json=body, headers=t.p1.h)
        assert r.status_code == 422 and "the tally rules could not" in r.json()["detail"], r.text
    assert t.get(t.gm, f"/api/scenes/{t.scene}")["head"]["seq"] == 1  # nothing was written


def test_a_busy_database_is_a_503_with_retry_after(table: Table, monkeypatch) -> None:
    from sqlalchemy.exc import OperationalError

    t = table

    def locked(*a, **kw):
        raise OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))

    monkeypatch.setattr(t.client.app.state.store, "scene_append", locked)
    r = t.client.post(f"/api/scenes/{t.scene}/posts", json={"kind": "ooc", "text": "x"}, headers=t.p1.h)
    assert (
        r.status_code == 503 and r.headers["retry-after"] == "1" and r.json()["detail"].startswith("the table is busy")
    )
