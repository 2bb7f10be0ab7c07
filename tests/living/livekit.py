"""A table with a real rule system, through the HTTP API only: GM, two players, a character each, a scene."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from web.apikit import User, make_user

from storymaster.play.verify import verify_export
from storymaster.web import Settings, create_app

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def client(tmp_path):
    """The table on SQLite with the real rule systems installed, through its HTTP API."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}", **FAST_ARGON2))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(system: str, name: str) -> dict[str, Any]:
    return yaml.safe_load((EXAMPLES / system / f"{name}.yaml").read_text())


@dataclass
class Live:
    client: TestClient
    gm: User
    p1: User
    p2: User
    campaign: int
    a: int  # p1's character
    b: int  # p2's character
    scene: int

    def call(self, method: str, path: str, who: User, expect: int = 200, **body: Any) -> Any:
        r = self.client.request(method, path, json=body or None, headers=who.h)
        assert r.status_code == expect, f"{method} {path}: {r.status_code} {r.text}"
        return r.json() if r.text else None

    def condition(self, ch: int, who: User | None = None) -> dict[str, Any]:
        return self.call("GET", f"/api/campaigns/{self.campaign}/characters/{ch}/condition", who or self.gm)

    def adjust(self, ch: int, values: dict[str, Any], reason: str = "the GM says so", **kw: Any) -> Any:
        return self.call(
            "POST",
            f"/api/campaigns/{self.campaign}/characters/{ch}/condition",
            self.gm,
            values=values,
            reason=reason,
            **kw,
        )

    def act(self, ch: int, request: dict[str, Any], who: User | None = None, expect: int = 200, **kw: Any) -> Any:
        return self.call(
            "POST",
            f"/api/campaigns/{self.campaign}/characters/{ch}/actions",
            who or self.gm,
            expect,
            request=request,
            **kw,
        )

    def act_in_scene(
        self, ch: int, request: dict[str, Any], who: User | None = None, expect: int = 200, **kw: Any
    ) -> Any:
        return self.call(
            "POST", f"/api/scenes/{self.scene}/characters/{ch}/actions", who or self.gm, expect, request=request, **kw
        )

    def advance(self, ch: int, request: dict[str, Any], who: User | None = None, expect: int = 200) -> Any:
        return self.call(
            "POST", f"/api/campaigns/{self.campaign}/characters/{ch}/advance", who or self.gm, expect, request=request
        )

    def sheet(self, ch: int) -> dict[str, Any]:
        return self.call("GET", f"/api/campaigns/{self.campaign}/characters/{ch}", self.gm)["sheet"]

    def fight(self, sides: list[list[int]], options: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.call("POST", f"/api/scenes/{self.scene}/combat", self.gm, 201, sides=sides, options=options or {})[
            "combat"
        ]

    def step(self) -> dict[str, Any]:
        return self.call("POST", f"/api/scenes/{self.scene}/combat/step", self.gm)["combat"]

    def preview(self, check: dict[str, Any], ch: int | None = None, who: User | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"check": check}
        if ch is not None:
            body["character"] = ch
        return self.call("POST", f"/api/scenes/{self.scene}/preview", who or self.gm, **body)

    def roll(self, check: dict[str, Any], ch: int, who: User) -> dict[str, Any]:
        return self.call(
            "POST",
            f"/api/scenes/{self.scene}/posts",
            who,
            201,
            kind="ic",
            character=ch,
            text="I try.",
            rolls=[{"check": check, "character": ch}],
        )

    def posts(self, who: User | None = None) -> list[dict[str, Any]]:
        return self.call("GET", f"/api/scenes/{self.scene}/posts", who or self.gm)

    def close_and_export(self) -> dict[str, Any]:
        self.call("POST", f"/api/scenes/{self.scene}/close", self.gm)
        doc = self.call("GET", f"/api/campaigns/{self.campaign}/export.json", self.gm)
        report = verify_export(doc)
        assert report["ok"], report
        return doc


def build_live(client: TestClient, system: str, a: dict[str, Any], b: dict[str, Any], house_rules: Any = None) -> Live:
    gm, p1, p2 = (make_user(client) for _ in range(3))
    r = client.post(
        "/api/campaigns",
        json={"name": f"Living {system}", "system": system, "house_rules": house_rules or {}},
        headers=gm.h,
    )
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for u in (p1, p2):
        r = client.post(f"/api/campaigns/{cid}/members", json={"user": u.name, "role": "player"}, headers=gm.h)
        assert r.status_code == 201, r.text
    ids = []
    for u, sheet in ((p1, a), (p2, b)):  # the GM enters them (a sheet with experience is the table's to set)
        r = client.post(f"/api/campaigns/{cid}/characters", json={"sheet": sheet, "owner": u.id}, headers=gm.h)
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    r = client.post(f"/api/campaigns/{cid}/scenes", json={"title": "The road", "cast": ids}, headers=gm.h)
    assert r.status_code == 201, r.text
    return Live(client, gm, p1, p2, cid, ids[0], ids[1], r.json()["id"])


def dump(doc: Any) -> str:
    return yaml.safe_dump(doc)
