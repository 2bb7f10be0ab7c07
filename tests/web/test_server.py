"""Real server processes: a crash mid-load loses no acknowledged post; SSE fans out across workers via LISTEN/NOTIFY."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from play.kit import unique
from web.servers import Server


def _setup(url: str) -> tuple[dict[str, str], int, int]:
    name = unique("gm")
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/api/users", json={"name": name, "password": "correct horse battery"})
        assert r.status_code == 201, r.text
        csrf = c.post("/api/session", json={"name": name, "password": "correct horse battery"}).json()["csrf"]
        token = c.post("/api/tokens", json={"name": "load"}, headers={"X-CSRF-Token": csrf}).json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        cid = c.post("/api/campaigns", json={"name": "Crash", "system": "tally"}, headers=h).json()["id"]
        sid = c.post(f"/api/campaigns/{cid}/scenes", json={"title": "Under load"}, headers=h).json()["id"]
    return h, cid, sid


@pytest.mark.slow
def test_a_crash_mid_load_loses_no_acknowledged_post(tmp_path, cli) -> None:
    db = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    server = Server(db)
    h, _cid, sid = _setup(server.url)
    acked: dict[int, str] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def client(n: int) -> None:
        with httpx.Client(base_url=server.url, timeout=5, headers=h) as c:
            i = 0
            while not stop.is_set():
                text = f"client {n} post {i}"
                try:
                    r = c.post(
                        f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": text, "rolls": [{"dice": "2d6"}]}
                    )
                except httpx.HTTPError:
                    return  # the server died mid-request: not acknowledged
                if r.status_code == 201:
                    with lock:
                        acked[r.json()["id"]] = text
                i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for th in threads:
        th.start()
    deadline = time.monotonic() + 20
    while len(acked) < 30 and time.monotonic() < deadline:  # some load first, however slow the machine
        time.sleep(0.1)
    time.sleep(0.3)
    server.kill()  # SIGKILL, mid-load
    stop.set()
    for th in threads:
        th.join()
    assert len(acked) > 10

    again = Server(db)
    try:
        with httpx.Client(base_url=again.url, timeout=10, headers=h) as c:
            posts = c.get(f"/api/scenes/{sid}/posts", params={"limit": 1000}).json()
            while len(posts) % 1000 == 0 and posts:
                more = c.get(f"/api/scenes/{sid}/posts", params={"after": posts[-1]["id"], "limit": 1000}).json()
                if not more:
                    break
                posts += more
            stored = {p["id"]: p["text"] for p in posts}
            missing = {k: v for k, v in acked.items() if stored.get(k) != v}
            assert not missing, f"{len(missing)} acknowledged posts lost"
            # the log is still one intact chain, and it still takes posts
            assert (
                c.post(f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": "after the crash"}).status_code == 201
            )
            assert c.post(f"/api/scenes/{sid}/close").status_code == 200
            export = c.get(f"/api/scenes/{sid}/export.json").text
    finally:
        again.stop()
    path = tmp_path / "export.json"
    path.write_text(export)
    result = cli("verify", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["logs"][0]["rolls_replayed"] >= len(acked)


@pytest.mark.slow
def test_live_updates_reach_every_worker_through_listen_notify(pg_url) -> None:
    # SSE streams re-check only every 60 s here, so an update in time can only have come by NOTIFY
    server = Server(pg_url, workers=2, env={"STORYMASTER_SSE_POLL": "60"})
    try:
        h, _cid, sid = _setup(server.url)
        got: list[list[tuple[float, str]]] = [[] for _ in range(6)]
        ready = threading.Barrier(7, timeout=20)

        def listen(i: int) -> None:
            with (
                httpx.Client(base_url=server.url, timeout=30, headers=h) as c,
                c.stream("GET", f"/api/scenes/{sid}/events", params={"max_seconds": 8}) as r,
            ):
                lines = r.iter_lines()
                for line in lines:
                    if line.startswith("event: hello"):
                        break
                ready.wait()
                for line in lines:
                    if line.startswith("data: ") and '"text"' in line:
                        got[i].append((time.monotonic(), json.loads(line[6:])["text"]))
                        return

        threads = [threading.Thread(target=listen, args=(i,)) for i in range(6)]
        for th in threads:
            th.start()
        ready.wait()
        time.sleep(0.3)
        sent = time.monotonic()
        with httpx.Client(base_url=server.url, timeout=10, headers=h) as c:
            assert (
                c.post(f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": "hello, everyone"}).status_code == 201
            )
        for th in threads:
            th.join(timeout=15)
        assert all(g and g[0][1] == "hello, everyone" for g in got), got
        assert max(g[0][0] - sent for g in got) < 3.0
    finally:
        server.stop()
