"""Helpers for the page tests: sign up through the forms, read CSRF tokens from pages, build a table."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    m = CSRF.search(html)
    assert m, "the page has no CSRF field"
    return m.group(1)


@dataclass
class Person:
    name: str
    client: TestClient
    csrf: str = ""
    id: int = 0

    def get(self, url: str, **kw: Any):
        return self.client.get(url, follow_redirects=False, **kw)

    def post(self, url: str, data: dict[str, Any] | None = None, *, csrf: bool = True, **kw: Any):
        data = dict(data or {})
        if csrf:
            data.setdefault("csrf", self.csrf)
        return self.client.post(url, data=data, follow_redirects=False, **kw)


def form_values(page: str) -> dict[str, Any]:
    """The values a browser would submit from the builder's form (text, numbers, checkboxes, selects, textareas)."""
    out: dict[str, Any] = {}
    for tag in re.findall(r"<input [^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or name.group(1) == "csrf":
            continue
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                out[name.group(1)] = "on"
            continue
        value = re.search(r'value="([^"]*)"', tag)
        out[name.group(1)] = html.unescape(value.group(1)) if value else ""
    for name, body in re.findall(r'<select [^>]*name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r"<option[^>]*selected[^>]*>(.*?)</option>", body) or re.search(
            r"<option[^>]*>(.*?)</option>", body
        )
        value = re.search(r'value="([^"]*)"', chosen.group(0)) if chosen else None
        out[name] = html.unescape(value.group(1) if value else chosen.group(1)) if chosen else ""
    for name, body in re.findall(r'<textarea [^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', page, re.S):
        out[name] = html.unescape(body)
    return out


def sign_up(app, name: str, password: str = "correct horse battery") -> Person:
    client = TestClient(app, raise_server_exceptions=False)
    client.__enter__()
    r = client.post("/signup", data={"name": name, "password": password, "next": "/campaigns"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = client.get("/campaigns")
    p = Person(name, client, csrf_of(page.text))
    p.id = client.get("/api/me").json()["id"]
    return p


@dataclass
class Table:
    gm: Person
    alice: Person
    bob: Person
    observer: Person
    outsider: Person
    cid: int = 0
    sid: int = 0
    chars: dict[str, int] = field(default_factory=dict)
    invite: str = ""


def build_table(app, system: str = "fuzzy") -> Table:
    gm, alice, bob, obs, out = (sign_up(app, n) for n in ("gm", "alice", "bob", "olga", "oscar"))
    r = gm.post("/campaigns", {"name": "The Long Road", "system": system})
    assert r.status_code == 303, r.text
    cid = int(r.headers["location"].rsplit("/", 1)[1])
    page = gm.post(f"/campaigns/{cid}/invites", {"role": "player"}).text
    invite = re.search(r'id="invite" readonly value="http://testserver(/join/[^"]+)"', page).group(1)
    for p in (alice, bob):
        assert p.post(invite).status_code == 303
    assert gm.post(f"/campaigns/{cid}/members", {"user": "olga", "role": "observer"}).status_code == 303
    t = Table(gm, alice, bob, obs, out, cid=cid, invite=invite)
    for p, who in ((alice, "Alis"), (bob, "Bobo")):
        data = form_values(p.get(f"/campaigns/{cid}/characters/new").text)
        data["f.name"] = who
        r = p.post(f"/campaigns/{cid}/characters", data)
        assert r.status_code == 303, r.text
        t.chars[who] = int(r.headers["location"].rsplit("/", 1)[1])
    r = gm.post(
        f"/campaigns/{cid}/scenes",
        {
            "title": "At the gate",
            "mode": "turn",
            "cast": [t.chars["Alis"], t.chars["Bobo"]],
            "turn_hours": "24",
            "on_deadline": "skip",
        },
    )
    assert r.status_code == 303, r.text
    t.sid = int(r.headers["location"].rsplit("/", 1)[1])
    return t
