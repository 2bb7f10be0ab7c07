"""``serve --demo``: a campaign per system worth exploring, seeded through the domain, checked through the API."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from storymaster.play.verify import verify_text
from storymaster.rules import all_systems, get_system
from storymaster.web import Settings, create_app
from storymaster.web.demo import DEMO_USERS, demo_data, seed_demo

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}
SYSTEMS = ("blyss", "philsys", "bum", "kalyr", "fuzzy")
PASSWORDS = {n: p for n, p, _ in DEMO_USERS}


def _set(data, path: str, value) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        data = data[int(p)] if isinstance(data, list) else data[p]
    if isinstance(data, list):
        data[int(parts[-1])] = value
    else:
        data[parts[-1]] = value


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_demo_characters_are_legal_and_one_is_at_a_limit(name) -> None:
    system = get_system(name)
    data = demo_data(name)
    assert data is not None
    chars = data["characters"]
    assert [c["owner"] for c in chars] == ["player", "player2", "gm"]
    for spec in chars:
        c = system.coerce_character(spec["sheet"])
        assert system.validate_character(c) == [], spec["sheet"].get("name")
    limited = [c for c in chars if "at_limit" in c]
    assert len(limited) == 1
    over = copy.deepcopy(limited[0]["sheet"])
    _set(over, limited[0]["at_limit"]["path"], limited[0]["at_limit"]["over"])
    # one step past the character breaks the book's creation rules: it is at the limit, not near it by chance
    assert system.validate_character(system.coerce_character(over)), limited[0]["at_limit"]
    sides = data["fight"]["sides"]
    assert len(sides) == 2 and all(0 <= i < len(chars) for side in sides for i in side)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    db = tmp_path_factory.mktemp("demo") / "demo.sqlite3"
    app = create_app(Settings(database_url=f"sqlite:///{db}", **FAST_ARGON2))
    seeded = seed_demo(app.state.store, datetime.now(UTC), PasswordHasher(time_cost=1, memory_cost=1024))
    with TestClient(app) as client:
        yield app, client, seeded


def _login(client: TestClient, name: str) -> str:
    client.cookies.clear()
    r = client.post("/api/session", json={"name": name, "password": PASSWORDS[name]})
    assert r.status_code == 200, r.text
    return r.json()["csrf"]


def _campaigns(client: TestClient) -> dict[str, dict]:
    me = client.get("/api/me").json()
    return {c["system"]: c for c in me["campaigns"]}


def test_every_system_is_seeded_once(demo) -> None:
    app, client, seeded = demo
    assert set(SYSTEMS) <= set(seeded) and set(seeded) <= set(all_systems())
    assert seed_demo(app.state.store, datetime.now(UTC), PasswordHasher(time_cost=1, memory_cost=1024)) == []
    _login(client, "gm")
    assert set(SYSTEMS) <= set(_campaigns(client))


@pytest.mark.parametrize("name", SYSTEMS)
def test_each_campaign_has_what_the_demo_promises(demo, name, tmp_path) -> None:
    _, client, _ = demo
    csrf = _login(client, "gm")
    camp = _campaigns(client)[name]
    assert camp["role"] == "gm"
    cid = camp["id"]
    campaign = client.get(f"/api/campaigns/{cid}").json()
    roles = sorted(m["role"] for m in campaign["members"])
    assert roles == ["gm", "player", "player"]
    assert len(campaign["characters"]) == 3
    # between the scenes, the table's living rules changed a condition and awarded experience
    data = demo_data(name)
    chars = sorted(campaign["characters"], key=lambda ch: ch["id"])
    for item in data.get("after_prologue", []):
        ch = chars[item["character"]]
        if "request" in item:
            cond = client.get(f"/api/campaigns/{cid}/characters/{ch['id']}/condition").json()
            assert any(h["why"].get("kind") == item["request"]["action"] for h in cond["history"]), cond["history"]
        else:
            got = client.get(f"/api/campaigns/{cid}/characters/{ch['id']}").json()
            assert got["version"] >= 2  # the award made a new version of the sheet
    scenes = client.get(f"/api/campaigns/{cid}/scenes").json()
    closed = [s for s in scenes if s.get("closed")]
    open_ = [s for s in scenes if not s.get("closed")]
    assert len(closed) == 1 and len(open_) == 1

    # the closed prologue: its export verifies, every roll replayed from the revealed seed
    prologue = closed[0]["id"]
    export = client.get(f"/api/scenes/{prologue}/export.json").text
    report = verify_text(export)
    assert sum(log["rolls_replayed"] for log in report["logs"]) >= 2

    # the open scene: turn-based, mid-round (someone still to act), a fight in progress
    sid = open_[0]["id"]
    scene = client.get(f"/api/scenes/{sid}").json()
    assert scene["mode"] == "turn" and scene["turn"]["round"] == 1 and scene["turn"]["owed"]
    fight = scene["combat"]
    assert fight is not None and not fight["over"]
    posts = client.get(f"/api/scenes/{sid}/posts").json()
    kinds = {p["kind"] for p in posts}
    assert {"ic", "ooc", "private"} <= kinds
    rolls = [r for p in posts for r in p.get("rolls", [])]
    assert any(r.get("type") == "check" for r in rolls), rolls
    assert any(r.get("visibility") == "gm" for r in rolls)
    assert any("inline" in r for r in rolls)  # an inline roll written in the text ([[2d6 ...]])

    # the GM's page shows the forecast; the GM can step the fight
    page = client.get(f"/scenes/{sid}").text
    assert "forecast" in page.lower()
    r = client.post(f"/api/scenes/{sid}/combat/step", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.text
    assert r.json()["combat"]["round"] == fight["round"] + 1

    # a player sees their own hidden roll and private post, not the GM's; the other player sees neither
    _login(client, "player")
    mine = client.get(f"/api/scenes/{sid}/posts").json()
    assert any(p["kind"] == "private" for p in mine)
    _login(client, "player2")
    theirs = client.get(f"/api/scenes/{sid}/posts").json()
    assert not any(p["kind"] == "private" for p in theirs)
    assert "courier" not in json.dumps(theirs) and "courier" in json.dumps(mine)  # the readers-only block
    assert "forecast" not in client.get(f"/scenes/{sid}").text.lower()


def test_the_banner_fits_80_columns(cli, tmp_path, monkeypatch) -> None:
    import uvicorn

    for key in (
        "STORYMASTER_DATABASE_URL",
        "STORYMASTER_MIGRATE",
        "STORYMASTER_SMTP_HOST",
        "STORYMASTER_SMTP_PORT",
        "STORYMASTER_DIGEST_EVERY",
        "STORYMASTER_BASE_URL",
        "STORYMASTER_API_DOCS",
    ):
        monkeypatch.setenv(key, "")
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: None)
    monkeypatch.setattr("storymaster.web.demo.PasswordHasher", lambda: PasswordHasher(time_cost=1, memory_cost=1024))
    result = cli("serve", "--demo", "--database", str(tmp_path / "d.sqlite3"), "--port", "8123")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    address = [line for line in lines if "http://127.0.0.1:8123/" in line]
    accounts = [line for line in lines if any(p in line for p in PASSWORDS.values())]
    assert len(address) == 1 and len(accounts) == len(DEMO_USERS)
    for line in address + accounts:
        assert len(line) <= 80, line
    assert all(len(line) <= 80 for line in lines if not line.startswith("Database:")), lines  # (a path is a path)
    for name, password, _ in DEMO_USERS:  # name and password on one line, as typed
        assert any(re.search(rf"\b{name}\s+{password}\b", line) for line in accounts)
    json.dumps(result.stdout)
