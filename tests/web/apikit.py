"""The API tests' helpers: users with tokens, and a ready table (campaign, members, characters, a scene)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient
from play.kit import unique


@dataclass
class User:
    id: int
    name: str
    token: str

    @property
    def h(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def make_user(client: TestClient, name: str | None = None, email: str | None = None) -> User:
    name = name or unique("user")
    body: dict[str, Any] = {"name": name, "password": "correct horse battery"}
    if email:
        body["email"] = email
    r = client.post("/api/users", json=body)
    assert r.status_code == 201, r.text
    uid = r.json()["id"]
    r = client.post("/api/session", json={"name": name, "password": "correct horse battery"})
    assert r.status_code == 200, r.text
    csrf = r.json()["csrf"]
    r = client.post("/api/tokens", json={"name": "tests"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return User(uid, name, r.json()["token"])


@dataclass
class Table:
    client: TestClient
    gm: User
    p1: User
    p2: User
    obs: User
    outsider: User
    campaign: int
    c1: int  # p1's character
    c2: int  # p2's character
    npc: int  # the GM's
    scene: int
    extra: dict[str, Any] = field(default_factory=dict)

    def post(self, who: User, expect: int = 201, scene: int | None = None, **body: Any) -> dict[str, Any]:
        r = self.client.post(f"/api/scenes/{scene or self.scene}/posts", json=body, headers=who.h)
        assert r.status_code == expect, r.text
        return r.json()

    def get(self, who: User | None, path: str, expect: int = 200) -> Any:
        r = self.client.get(path, headers=who.h if who else {})
        assert r.status_code == expect, r.text
        return (
            r.json()
            if r.headers.get("content-type", "").startswith(("application/json", "application/problem+json"))
            else r.text
        )

    def open_scene(self, **body: Any) -> int:
        body.setdefault("title", unique("scene"))
        r = self.client.post(f"/api/campaigns/{self.campaign}/scenes", json=body, headers=self.gm.h)
        assert r.status_code == 201, r.text
        return r.json()["id"]


def build_table(client: TestClient) -> Table:
    gm, p1, p2, obs, outsider = (make_user(client, unique(n)) for n in ("gm", "p1", "p2", "obs", "out"))
    r = client.post(
        "/api/campaigns", json={"name": "The Long Road", "system": "tally", "house_rules": {"bonus": 1}}, headers=gm.h
    )
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for u, role in ((p1, "player"), (p2, "player"), (obs, "observer")):
        r = client.post(f"/api/campaigns/{cid}/members", json={"user": u.name, "role": role}, headers=gm.h)
        assert r.status_code == 201, r.text
    chars = []
    for u, name in ((p1, "Arn"), (p2, "Bel"), (gm, "The Innkeeper")):
        r = client.post(f"/api/campaigns/{cid}/characters", json={"sheet": {"name": name, "skill": 2}}, headers=u.h)
        assert r.status_code == 201, r.text
        chars.append(r.json()["id"])
    r = client.post(f"/api/campaigns/{cid}/scenes", json={"title": "At the Inn", "cast": chars[:2]}, headers=gm.h)
    assert r.status_code == 201, r.text
    return Table(client, gm, p1, p2, obs, outsider, cid, chars[0], chars[1], chars[2], r.json()["id"])
