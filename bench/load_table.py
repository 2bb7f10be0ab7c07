"""Load test for the table server: many concurrent clients posting and rolling, on loopback, bounded.

    python bench/load_table.py                      # SQLite and PostgreSQL, 200 clients, 10 s each
    python bench/load_table.py --db sqlite --clients 50 --seconds 5

Starts the server itself (uvicorn, several workers) on 127.0.0.1 with a fresh
database, drives ``--clients`` concurrent clients that each post with dice
rolls as fast as they are answered, for at most ``--seconds`` and at most
``--max-posts`` posts per client; then checks that every acknowledged post is
stored with its text and its rolls, closes the scenes and verifies every
scene's export offline (hash chain, seed commitment, every roll replayed).
Reports throughput, p50/p99 latency and what, if anything, was lost.
Not part of ``make test``: run it with ``make load``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory

import httpx

HERE = Path(__file__).resolve().parent
PG_ADMIN = os.environ.get("STORYMASTER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


# --- the server process -------------------------------------------------------------------------


def app_factory():
    """The app for the load test's workers: a minimal rule system is installed when none is."""
    from storymaster.rules import all_systems, registry

    if not all_systems():
        from importlib.metadata import EntryPoint

        ep = EntryPoint(name="loadtest", value="load_table:LOAD_SYSTEM", group=registry.SYSTEMS_GROUP)
        registry.entry_points = lambda group: [ep] if group == registry.SYSTEMS_GROUP else []
        registry._load.cache_clear()
    from storymaster.web.factory import from_env

    return from_env()


def _load_system():
    from fractions import Fraction

    from storymaster.dice import roll
    from storymaster.rules import Check, HouseRules, Model, Outcome, OutcomeOdds

    class Sheet(Model):
        name: str

    class D6(Check):
        target: int = 4

    class Engine:
        def start(self, sides, *, house_rules=None, options=None):
            return Sheet(name="fight")

        def step(self, state, rng):
            return state, []

        def is_over(self, state):
            return True

        def winner(self, state):
            return None

    class LoadSystem:
        name, title, version = "loadtest", "Load test system", "1"
        character_model, house_rules_model, check_types, combat = Sheet, HouseRules, {"d6": D6}, Engine()

        def validate_character(self, character, house_rules=None):
            return []

        def resolve(self, check, rng, house_rules=None):
            r = roll("d6", rng)
            return Outcome(
                "loadtest", "d6", "hit" if r.total >= check.target else "miss", r.total >= check.target, "d6", (r,)
            )

        def odds(self, check, house_rules=None):
            p = Fraction(max(0, 7 - check.target), 6)
            return OutcomeOdds(
                "loadtest", "d6", {"hit": p, "miss": 1 - p} if 0 < p < 1 else {"hit" if p else "miss": Fraction(1)}
            )

        def advance(self, character, request, rng, house_rules=None):
            return character, []

    return LoadSystem()


LOAD_SYSTEM = _load_system() if __name__ != "__main__" else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(database_url: str, workers: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": str(HERE) + os.pathsep + env.get("PYTHONPATH", ""),
            "STORYMASTER_DATABASE_URL": database_url,
            # cheap password hashing: the load test measures the table, not argon2
            "STORYMASTER_ARGON2_TIME_COST": "1",
            "STORYMASTER_ARGON2_MEMORY_COST": "8192",
        }
    )
    from storymaster.store import make_engine, migrate

    engine = make_engine(database_url)
    migrate(engine)  # once, before the workers start
    engine.dispose()
    env["STORYMASTER_MIGRATE"] = "0"
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "load_table:app_factory",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--backlog",
        "4096",
        "--timeout-keep-alive",
        "60",
    ]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("the server did not start")


def stop_server(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


# --- the clients --------------------------------------------------------------------------------


async def _user(c: httpx.AsyncClient, name: str) -> dict[str, str]:
    r = await c.post("/api/users", json={"name": name, "password": "load test password"})
    r.raise_for_status()
    r = await c.post("/api/session", json={"name": name, "password": "load test password"})
    csrf = r.json()["csrf"]
    r = await c.post("/api/tokens", json={"name": "load"}, headers={"X-CSRF-Token": csrf})
    c.cookies.clear()
    return {"Authorization": f"Bearer {r.json()['token']}"}


async def setup(url: str, players: int, scenes: int) -> tuple[dict[str, str], list[dict[str, str]], list[int], str]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        tag = uuid.uuid4().hex[:6]
        gm = await _user(c, f"gm-{tag}")
        system = (await c.get("/api/systems")).json()["systems"][0]["name"]
        cid = (await c.post("/api/campaigns", json={"name": "Load", "system": system}, headers=gm)).json()["id"]
        users = []
        for i in range(players):
            name = f"p{i}-{tag}"
            users.append(await _user(c, name))
            r = await c.post(f"/api/campaigns/{cid}/members", json={"user": name, "role": "player"}, headers=gm)
            r.raise_for_status()
        sids = []
        for i in range(scenes):
            r = await c.post(f"/api/campaigns/{cid}/scenes", json={"title": f"Scene {i}"}, headers=gm)
            sids.append(r.json()["id"])
    return gm, users, sids, system


async def drive(url: str, users, sids, clients: int, seconds: float, max_posts: int):
    latencies: list[float] = []
    acked: dict[int, dict[int, tuple[str, int]]] = {sid: {} for sid in sids}
    errors: dict[str, int] = {}
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    end = time.monotonic() + seconds

    async def client(n: int, c: httpx.AsyncClient) -> None:
        headers = users[n % len(users)]
        sid = sids[n % len(sids)]
        for i in range(max_posts):
            if time.monotonic() >= end:
                return
            body = {
                "kind": "ooc",
                "text": f"client {n} post {i}",
                "rolls": [{"dice": "3d6", "label": "load"}, {"dice": "d20", "visibility": "blind"}],
            }
            t0 = time.monotonic()
            try:
                r = await c.post(f"/api/scenes/{sid}/posts", json=body, headers=headers)
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                continue
            latencies.append(time.monotonic() - t0)
            if r.status_code == 201:
                acked[sid][r.json()["id"]] = (body["text"], len(body["rolls"]))
            else:
                errors[str(r.status_code)] = errors.get(str(r.status_code), 0) + 1

    started = time.monotonic()
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as c:
        await asyncio.gather(*(client(n, c) for n in range(clients)))
    return latencies, acked, errors, time.monotonic() - started


async def check(url: str, gm, acked) -> tuple[int, int, list[str]]:
    from storymaster.play.verify import verify_export

    lost_posts = lost_rolls = 0
    problems = []
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        for sid, posts in acked.items():
            stored = {}
            after = 0
            while True:
                page = (
                    await c.get(f"/api/scenes/{sid}/posts", params={"after": after, "limit": 1000}, headers=gm)
                ).json()
                if not page:
                    break
                stored.update({p["id"]: p for p in page})
                after = page[-1]["id"]
            for pid, (text, rolls) in posts.items():
                p = stored.get(pid)
                if p is None or p.get("text") != text:
                    lost_posts += 1
                elif len(p["rolls"]) != rolls:
                    lost_rolls += 1
            await c.post(f"/api/scenes/{sid}/close", headers=gm)
            doc = (await c.get(f"/api/scenes/{sid}/export.json", headers=gm)).json()
            try:
                report = verify_export(doc)["logs"][0]
                if report["rolls_replayed"] < sum(r for _, r in posts.values()):
                    problems.append(f"scene {sid}: fewer rolls replayed than acknowledged")
            except Exception as exc:
                problems.append(f"scene {sid}: {exc}")
    return lost_posts, lost_rolls, problems


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(kind: str, args) -> bool:
    tmp = TemporaryDirectory()
    dbname = None
    if kind == "sqlite":
        url = f"sqlite:///{Path(tmp.name) / 'load.sqlite3'}"
    else:
        import psycopg

        dbname = f"storymaster_load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        url = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1) + f"/{dbname}"
    proc, base = start_server(url, args.workers)
    try:
        gm, users, sids, system = asyncio.run(setup(base, args.players, args.scenes))
        latencies, acked, errors, elapsed = asyncio.run(
            drive(base, users, sids, args.clients, args.seconds, args.max_posts)
        )
        lost_posts, lost_rolls, problems = asyncio.run(check(base, gm, acked))
    finally:
        stop_server(proc)
        if dbname:
            import psycopg

            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        tmp.cleanup()
    n_ok = sum(len(p) for p in acked.values())
    rolls = sum(r for p in acked.values() for _, r in p.values())
    print(
        f"\n{kind}: {args.workers} workers, {args.clients} clients, {args.scenes} scenes, system {system}, "
        f"{elapsed:.1f} s"
    )
    print(f"  posts acknowledged  {n_ok}  ({rolls} rolls)   throughput {n_ok / elapsed:.0f} posts/s")
    if latencies:
        print(
            f"  latency  p50 {_pct(latencies, 0.5) * 1000:.0f} ms   p99 {_pct(latencies, 0.99) * 1000:.0f} ms   "
            f"mean {statistics.fmean(latencies) * 1000:.0f} ms   max {max(latencies) * 1000:.0f} ms"
        )
    print(f"  errors   {errors or 'none'}")
    print(f"  lost     {lost_posts} posts, {lost_rolls} rolls;  exports verified: {problems if problems else 'all'}")
    return not lost_posts and not lost_rolls and not problems


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    p.add_argument("--clients", type=int, default=200)
    p.add_argument("--players", type=int, default=20)
    p.add_argument("--scenes", type=int, default=10)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seconds", type=float, default=10.0, help="stop posting after this long (the bound on time)")
    p.add_argument("--max-posts", type=int, default=200, help="at most this many posts per client (the bound on count)")
    args = p.parse_args()
    args.clients = max(1, min(args.clients, 1000))
    args.seconds = max(1.0, min(args.seconds, 120.0))
    ok = all(run(kind, args) for kind in (("sqlite", "postgresql") if args.db == "both" else (args.db,)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
