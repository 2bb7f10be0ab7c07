"""Issue 17 / 16.3: no request stalls the server. Health latency while each heavy request runs, against idle.

    python bench/table_speed.py            # 8 s per heavy request (BENCH_QUICK=1: 3 s)

Starts the table server (uvicorn, one process, SQLite, the real argon2 costs and the default 5 s work
budget) on loopback, builds a BLYSS campaign over HTTP (two starter characters in a duel, a scene with
a few hundred posts), then for each heavy request sends it back to back from one client for the whole
window while another client asks ``GET /api/health`` one request after another. Prints the health
latency (p50, p99, max) per heavy request, the idle baseline first, and one TARGET line per target:

* issue 17: health p99 <= 50 ms while each heavy request runs;
* issue 16.3: health answers within 100 ms (p99) under every attack (the worst of them).

The GM page's forecast is cached per (scene, log head): to measure the forecast itself and not the
cache, every GM page load follows a new post (a new log head).
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import QUICK, ROOT, header, target

WINDOW = 3.0 if QUICK else 8.0
PASSWORD = "correct horse battery"
BOMB = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True)),
    ]
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, db: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "STORYMASTER_DATABASE_URL": f"sqlite:///{db}",
            "STORYMASTER_BASE_URL": self.base,
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "storymaster.web.factory:from_env",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=str(ROOT),
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise SystemExit("the server did not come up")

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)


def person(base: str, name: str) -> tuple[httpx.Client, str]:
    c = httpx.Client(base_url=base, timeout=120, headers={"Origin": base})
    r = c.post("/api/users", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    r = c.post("/api/session", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    csrf = r.json()["csrf"]
    c.headers["X-CSRF-Token"] = csrf
    return c, csrf


def build(base: str, posts: int) -> dict[str, Any]:
    from storymaster import safe_yaml

    gm, _ = person(base, "gm")
    alice, _ = person(base, "alice")
    r = gm.post("/api/campaigns", json={"name": "Duel", "system": "blyss"})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    assert gm.post(f"/api/campaigns/{cid}/members", json={"user": "alice", "role": "player"}).status_code == 201
    starter = safe_yaml.load((ROOT / "src/storymaster/web/templates/starters/blyss.yaml").read_text())
    chars = []
    for c, name in ((alice, "Alis"), (gm, "Bobo")):
        r = c.post(f"/api/campaigns/{cid}/characters", json={"sheet": {**starter, "name": name}})
        assert r.status_code == 201, r.text
        chars.append(r.json()["id"])
    r = gm.post(f"/api/campaigns/{cid}/scenes", json={"title": "At the gate", "cast": chars})
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    text = "The rain keeps falling on the old road. " * 100
    for _ in range(posts):
        assert alice.post(f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": text}).status_code == 201
    r = gm.post(f"/api/scenes/{sid}/combat", json={"sides": [[chars[0]], [chars[1]]]})
    assert r.status_code == 201, r.text
    return {"gm": gm, "alice": alice, "cid": cid, "sid": sid}


def probe(base: str, seconds: float, heavy: Any = None) -> tuple[list[float], list[float], int]:
    """Health latencies (seconds) for ``seconds`` while ``heavy()`` runs back to back in a thread:
    (health latencies, heavy request times, heavy requests that failed with 5xx)."""
    stop = threading.Event()
    heavy_times: list[float] = []
    errors = [0]

    def loop() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            status = heavy()
            heavy_times.append(time.perf_counter() - t)
            if status >= 500:
                errors[0] += 1

    thread = threading.Thread(target=loop, daemon=True) if heavy else None
    if thread:
        thread.start()
        time.sleep(0.2)  # the first heavy request is in flight
    lat = []
    with httpx.Client(base_url=base, timeout=120) as c:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            assert c.get("/api/health").status_code == 200
            lat.append(time.perf_counter() - t)
            time.sleep(0.01)
    stop.set()
    if thread:
        thread.join(120)
    return lat, heavy_times, errors[0]


def p(lat: list[float], q: float) -> float:
    return statistics.quantiles(lat, n=100, method="inclusive")[int(q) - 1] if len(lat) >= 2 else lat[0]


def main() -> int:
    header("Table server: health latency while heavy requests run (issue 17, issue 16.3)")
    with TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "table.sqlite3")
        try:
            t = build(server.base, posts=60 if QUICK else 300)
            gm, alice, cid, sid = t["gm"], t["alice"], t["cid"], t["sid"]

            def post_then(url: str) -> int:
                alice.post(f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": "a new log head"})
                return gm.get(url).status_code

            signer = httpx.Client(base_url=server.base, timeout=120, headers={"Origin": server.base})
            heavies = [
                (
                    "odds preview 599d6kh1",
                    lambda: alice.post(f"/api/scenes/{sid}/preview", json={"dice": "599d6kh1"}).status_code,
                ),
                (
                    "odds preview 1000d100kh1+1000d100kl1",
                    lambda: (
                        alice.post(f"/api/scenes/{sid}/preview", json={"dice": "1000d100kh1+1000d100kl1"}).status_code
                    ),
                ),
                ("GM scene page with a BLYSS duel (simulated forecast)", lambda: post_then(f"/scenes/{sid}")),
                ("GM scene page, exact forecast", lambda: post_then(f"/scenes/{sid}?forecast=exact")),
                ("campaign export (json)", lambda: alice.get(f"/api/campaigns/{cid}/export.json").status_code),
                (
                    "sign-in (argon2, default costs)",
                    lambda: signer.post("/api/session", json={"name": "alice", "password": PASSWORD}).status_code,
                ),
                (
                    "YAML alias bomb in the house rules page",
                    lambda: (
                        gm.post(
                            f"/campaigns/{cid}/house-rules",
                            data={"house_rules": BOMB, "csrf": gm.headers["X-CSRF-Token"]},
                        ).status_code
                    ),
                ),
            ]
            idle, _, _ = probe(server.base, WINDOW)
            idle_p99 = p(idle, 99)
            print(
                f"idle: health p50 {p(idle, 50) * 1e3:.1f} ms, p99 {idle_p99 * 1e3:.1f} ms, "
                f"max {max(idle) * 1e3:.1f} ms ({len(idle)} requests)"
            )
            worst = (0.0, "")
            for what, heavy in heavies:
                lat, times, errors = probe(server.base, WINDOW, heavy)
                p99 = p(lat, 99)
                heavy_mid = statistics.median(times) if times else float("nan")
                print(
                    f"{what}: health p50 {p(lat, 50) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, max {max(lat) * 1e3:.1f} ms"
                    f" ({len(lat)} requests); the heavy request took {heavy_mid * 1e3:.0f} ms (median of"
                    f" {len(times)}), {errors} answered 5xx"
                )
                worst = max(worst, (p99, what))
                target(
                    f"health p99 while {what} runs, <= 50 ms",
                    f"{p99 * 1e3:.1f} ms (p50 {p(lat, 50) * 1e3:.1f}, max {max(lat) * 1e3:.0f}; idle p99 "
                    f"{idle_p99 * 1e3:.1f} ms)",
                    f"{p99 / 0.050:.2f}x of limit",
                    p99 <= 0.050 and errors == 0,
                )
            target(
                "health p99 under every attack (issue 16.3), <= 100 ms",
                f"worst {worst[0] * 1e3:.1f} ms ({worst[1]})",
                f"{worst[0] / 0.100:.2f}x of limit",
                worst[0] <= 0.100,
            )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
