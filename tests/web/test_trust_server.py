"""Issue 16: no small request holds the server. Attacks sent to a real server; /api/health keeps answering.

SQLite and PostgreSQL, a real uvicorn process (the event loop is the thing under attack).
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time

import httpx
import pytest
from play.kit import db_url, pg_url, unique  # noqa: F401  (fixtures)
from web.servers import Server

# the 419-byte "billion laughs": nine levels of nine aliases, 9**9 strings once expanded
LEVELS = "abcdefghi"
BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{n}: &{n} [{','.join(['*' + p] * 9)}]" for p, n in itertools.pairwise(LEVELS)]
)
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture
def server(db_url):  # noqa: F811
    s = Server(db_url)
    yield s
    s.stop()


def _signed_in(server: Server) -> tuple[httpx.Client, str]:
    c = httpx.Client(base_url=server.url, timeout=10)
    name = unique("gm")
    assert c.post("/api/users", json={"name": name, "password": "correct horse battery"}).status_code == 201
    r = c.post("/api/session", json={"name": name, "password": "correct horse battery"})
    return c, r.json()["csrf"]


def _timed_health(client: httpx.Client) -> float:
    t0 = time.perf_counter()
    assert client.get("/api/health").status_code == 200
    return (time.perf_counter() - t0) * 1000


def _under_attack(server: Server, attack) -> tuple[httpx.Response, float, list[float]]:
    """Run ``attack`` in a thread while timing /api/health requests; (its response, its seconds, health ms)."""
    done: dict = {}

    def run() -> None:
        t0 = time.perf_counter()
        done["r"] = attack()
        done["s"] = time.perf_counter() - t0

    thread = threading.Thread(target=run)
    health: list[float] = []
    with httpx.Client(base_url=server.url, timeout=10) as h:
        thread.start()
        while thread.is_alive() or len(health) < 5:
            t0 = time.perf_counter()
            assert h.get("/api/health").status_code == 200
            health.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.01)
    thread.join()
    return done["r"], done["s"], health


def test_yaml_bombs_are_refused_at_once_and_health_keeps_answering(server: Server) -> None:
    assert len(BOMB.encode()) < 450
    c, csrf = _signed_in(server)
    h = {"X-CSRF-Token": csrf}
    cid = c.post("/api/campaigns", json={"name": "C", "system": "tally"}, headers=h).json()["id"]
    sid = c.post(f"/api/campaigns/{cid}/scenes", json={"title": "S"}, headers=h).json()["id"]
    attacks = {
        "composer check fields": (
            f"/scenes/{sid}/preview",
            {"roll_kind": "check", "check_type": "skill"},
            "check_fields",
        ),
        "builder sheet": (f"/campaigns/{cid}/characters/check", {}, "sheet"),
        "new character": (f"/campaigns/{cid}/characters", {}, "sheet"),
        "house rules": (f"/campaigns/{cid}/house-rules", {}, "house_rules"),
    }
    with httpx.Client(base_url=server.url, timeout=10) as probe:  # the same server idle, for comparison
        idle = statistics.median(_timed_health(probe) for _ in range(7))
    for name, (path, form, field) in attacks.items():
        for payload in (BOMB, DEEP):
            data = {**form, field: payload, "csrf": csrf}
            r, seconds, health = _under_attack(server, lambda p=path, d=data: c.post(p, data=d))
            if name in ("builder sheet", "composer check fields"):  # no YAML read there any more: the field is
                assert r.status_code < 500, (name, r.text[:300])  # ignored, and the page answers as without it
            else:
                assert 400 <= r.status_code < 500, (name, r.status_code, r.text[:300])
            # the bomb used to take 3-13 s and hold every other request meanwhile: now it is refused at once
            # (bounded far above any honest machine's time) and health is not held behind it. No absolute
            # latency here (a shared CI box varies tenfold); the 100 ms figure is measured in `make bench`
            # (bench/table_speed.py), against the same server idle.
            assert seconds < 2, (name, seconds)
            # the slowest health request (a held loop makes the one sent first wait for the whole attack)
            assert max(health) < 3 * idle + 1000, (name, idle, health)
    c.close()


def test_live_streams_are_capped_per_user(server: Server) -> None:
    c, csrf = _signed_in(server)
    h = {"X-CSRF-Token": csrf}
    cid = c.post("/api/campaigns", json={"name": "C", "system": "tally"}, headers=h).json()["id"]
    sid = c.post(f"/api/campaigns/{cid}/scenes", json={"title": "S"}, headers=h).json()["id"]
    opened = []
    try:
        for _ in range(8):
            cm = c.stream("GET", f"/api/scenes/{sid}/events?max_seconds=30")
            r = cm.__enter__()
            assert r.status_code == 200
            lines = r.iter_lines()
            next(lines)  # the hello: the stream is counted (the line iterator is kept: dropping it closes the stream)
            opened.append((cm, lines))
        r = c.get(f"/api/scenes/{sid}/events?max_seconds=1")
        assert r.status_code == 429 and "live streams" in r.json()["detail"]
        assert c.get("/api/health").status_code == 200
    finally:
        for cm, _ in opened:
            cm.__exit__(None, None, None)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # closed streams are given back
        r = c.get(f"/api/scenes/{sid}/events?max_seconds=0.1")
        if r.status_code == 200:
            break
        time.sleep(0.2)
    assert r.status_code == 200
    c.close()
