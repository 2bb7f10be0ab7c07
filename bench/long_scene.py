"""`make bench`, long scenes (issue 18 item 8, issue 17): what a reader's page and a live update cost as a
scene grows.

Measured in one process on SQLite (a temporary file), the app driven in-process by Starlette's TestClient,
so a figure is the server's time plus the test client's small overhead (an upper bound on server time):

(a) the scene page's first screen (GET /scenes/{id}: the newest posts, the turn box, the composer) of a
    3,000-post scene, warm (the scene's state folded once, as on a running server); target < 100 ms;
(b) a live-update delta for one new post: the stream's work for it (``_changes`` with the post's markup,
    the same function the SSE stream runs) and its bytes on the wire, at 3,000 posts, compared with the
    same delta at 100 posts (bytes O(new posts): the ratio stays about 1);
(c) issue 17: the first screen and a delta cost the same server time at 100 and at 10,000 posts
    (within 2x).

Each figure is the median of REPEAT interleaved runs with its spread (min..max); the load average is
printed with them. Every target is a `TARGET | what | measured | ratio | holds` line for bench/summary.py.
Set BENCH_QUICK=1 for fewer repetitions.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

QUICK = bool(os.environ.get("BENCH_QUICK"))
REPEAT = 7 if QUICK else 21
BATCH = 500


def _build(sizes: list[int], root: Path):
    """One table with one scene per size, each filled with that many posts (a tenth private, some rolls)."""
    from fastapi.testclient import TestClient

    from storymaster.play import scene as cmd
    from storymaster.rules import get_system
    from storymaster.web import Settings, create_app
    from storymaster.web.deps import now_text

    app = create_app(
        Settings(database_url=f"sqlite:///{root / 'bench.sqlite3'}", argon2_time_cost=1, argon2_memory_cost=1024)
    )
    client = TestClient(app)
    client.__enter__()
    tokens = {}
    for name in ("gm", "ann", "bo"):
        assert client.post("/api/users", json={"name": name, "password": "correct horse battery"}).status_code == 201
        r = client.post("/api/session", json={"name": name, "password": "correct horse battery"})
        r = client.post("/api/tokens", json={"name": "bench"}, headers={"X-CSRF-Token": r.json()["csrf"]})
        tokens[name] = {"Authorization": f"Bearer {r.json()['token']}"}
        client.cookies.clear()
    # the reader's page is a signed-in browser's: the client keeps ann's session cookie from here on
    client.post("/api/session", json={"name": "ann", "password": "correct horse battery"})

    def as_(name):
        return tokens[name]

    cid = client.post("/api/campaigns", json={"name": "Bench", "system": "fuzzy"}, headers=as_("gm")).json()["id"]
    for name in ("ann", "bo"):
        r = client.post(f"/api/campaigns/{cid}/members", json={"user": name, "role": "player"}, headers=as_("gm"))
        assert r.status_code == 201, r.text
    ids = {n: client.get("/api/me", headers=as_(n)).json()["id"] for n in tokens}
    store = app.state.store
    system = get_system("fuzzy")
    scenes = {}
    for size in sizes:
        sid = client.post(f"/api/campaigns/{cid}/scenes", json={"title": f"{size} posts"}, headers=as_("gm")).json()[
            "id"
        ]
        done = 0
        while done < size:
            n = min(BATCH, size - done)
            start = done

            def decide(c, s, seed, n=n, start=start):
                drafts = []
                for i in range(start, start + n):
                    who = ids["ann"] if i % 2 else ids["bo"]
                    kind, to = ("private", [ids["gm"]]) if i % 10 == 3 else ("ooc", [])
                    rolls = [{"dice": "2d6+1", "label": "a roll"}] if i == start + n - 1 else []
                    text = f"Post {i}: " + "the rain keeps falling on the old road, and nobody speaks. " * 6
                    drafts += cmd.write_post(
                        c,
                        s,
                        who,
                        kind=kind,
                        text=text,
                        now=datetime.now(UTC),
                        seed=seed,
                        system=system,
                        to=to,
                        rolls=rolls,
                    )
                return drafts

            store.scene_append(sid, decide, now_text(datetime.now(UTC)))
            done += n
        scenes[size] = sid
    return app, client, as_, ids, scenes


def _median(xs: list[float]) -> tuple[float, float, float]:
    return statistics.median(xs), min(xs), max(xs)


def _fmt(xs: list[float]) -> str:
    m, lo, hi = _median(xs)
    return f"{m * 1000:.1f} ms ({lo * 1000:.1f}..{hi * 1000:.1f})"


def main() -> int:
    from storymaster.web.deps import Caller
    from storymaster.web.routers.live import _changes

    sizes = [100, 3000, 10_000]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        app, client, as_, ids, scenes = _build(sizes, Path(tmp))
        print(f"long scenes: built {sum(sizes):,} posts in {time.perf_counter() - t0:.1f} s")
        store = app.state.store
        reader = Caller(ids["ann"], "ann", "session")
        page: dict[int, list[float]] = {n: [] for n in sizes}
        delta: dict[int, list[float]] = {n: [] for n in sizes}
        size_bytes: dict[int, list[int]] = {n: [] for n in sizes}
        page_bytes: dict[int, int] = {}
        for n in sizes:  # warm: fold each scene once, as a running server has
            r = client.get(f"/scenes/{scenes[n]}")
            assert r.status_code == 200, r.text[:500]
            page_bytes[n] = len(r.content)
        for _ in range(REPEAT):
            for n in sizes:  # interleaved
                sid = scenes[n]
                t = time.perf_counter()
                r = client.get(f"/scenes/{sid}")
                page[n].append(time.perf_counter() - t)
                assert r.status_code == 200
                before = store.scene_head(sid)
                r = client.post(
                    f"/api/scenes/{sid}/posts", json={"kind": "ooc", "text": "One more line."}, headers=as_("bo")
                )
                assert r.status_code == 201, r.text
                t = time.perf_counter()
                head, events = _changes(store, sid, reader, before, html=True)
                delta[n].append(time.perf_counter() - t)
                wire = "".join(f"id: {head}\nevent: {name}\ndata: {json.dumps(data)}\n\n" for _r, name, data in events)
                size_bytes[n].append(len(wire.encode()))
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {REPEAT} interleaved runs each")
        for n in sizes:
            print(
                f"  {n:>6} posts: first screen {_fmt(page[n])}, {page_bytes[n] / 1024:.0f} KiB; "
                f"delta {_fmt(delta[n])}, {statistics.median(size_bytes[n]):.0f} bytes"
            )
        p3000 = _median(page[3000])[0]
        print(
            f"TARGET | first screen of a 3,000-post scene, server time < 100 ms | {_fmt(page[3000])} | "
            f"{p3000 / 0.1:.2f}x of limit | holds {'yes' if p3000 < 0.1 else 'no'}"
        )
        d3000 = _median(delta[3000])[0]
        print(
            f"TARGET | live-update delta (one new post) in a 3,000-post scene, server time | {_fmt(delta[3000])} | - | "
            f"holds {'yes' if d3000 < 0.1 else 'no'}"
        )
        b100, b3000 = statistics.median(size_bytes[100]), statistics.median(size_bytes[3000])
        ratio = b3000 / b100
        print(
            f"TARGET | bytes per live update (one new post) O(new posts): 3,000 vs 100 posts within 1.5x | "
            f"{b3000:.0f} B vs {b100:.0f} B | {ratio:.2f}x | holds {'yes' if ratio <= 1.5 else 'no'}"
        )
        for what, series in (("first screen", page), ("live-update delta", delta)):
            small, large = _median(series[100])[0], _median(series[10_000])[0]
            r = large / small
            print(
                f"TARGET | {what}: server time at 10,000 vs 100 posts within 2x (issue 17) | "
                f"{_fmt(series[10_000])} vs {_fmt(series[100])} | {r:.2f}x | holds {'yes' if r <= 2 else 'no'}"
            )
        client.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
