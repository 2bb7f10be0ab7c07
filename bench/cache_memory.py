"""`make bench`, folded state in memory (issue 17): a server that has read 100 campaigns stays under its bound.

A SQLite table with 100 campaigns (three members each, a scene of 30 posts with a roll in every
third) is read campaign by campaign and scene by scene by a Store whose cache is bounded
(``cache_bytes``, STORYMASTER_CACHE_MB on a server), and by one with no bound. The memory the
store holds afterwards is measured with tracemalloc (Python's own allocation tracker, after a
collection), against the bound; the unbounded store's figure calibrates the size estimate
(ENTRY_OVERHEAD + JSON_FACTOR x the entry's stored JSON) against what its states really hold.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from common import QUICK, header, target

from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.rules import get_system
from storymaster.store import Store, make_engine, migrate

CAMPAIGNS = 100
POSTS = 15 if QUICK else 30
BOUND_MB = 4  # small on purpose: 100 campaigns of this size hold more than this when nothing is evicted
AT = datetime(2026, 3, 1, 12, tzinfo=UTC)
TEXT = "The rain has not stopped for three days, and the river is rising past the old markers. " * 3


def build(url: str) -> list[tuple[int, int]]:
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine, cache_bytes=None)
    system = get_system("kalyr")
    at = AT.isoformat()
    gm, *players = (store.create_user(name=f"u{k}", email=None, password_hash="x", at=at) for k in range(4))
    out = []
    for i in range(CAMPAIGNS):
        drafts = cc.create_campaign(gm, "gm", name=f"Campaign {i}", system=system, house_rules={})
        cid = store.create_campaign(name=f"Campaign {i}", system="kalyr", drafts=drafts, at=at).campaign
        for p in players:
            store.campaign_append(
                cid, lambda c, p=p: cc.add_member(c, gm, user=p, name=f"Player {p}", role="player"), at
            )
        seed = f"seed-{i}"
        sid, _ = store.open_scene(
            cid, seed, lambda c, sid, seed=seed: sc.open_scene(c, gm, scene_id=sid, title="The flood", seed=seed), at
        )
        for j in range(POSTS):
            who = players[j % len(players)]
            rolls = [{"dice": "4dF+2", "label": "swim"}] if j % 3 == 0 else []

            def post(c, s, seed, who=who, rolls=rolls):
                return sc.write_post(c, s, who, kind="ooc", text=TEXT, now=AT, seed=seed, system=system, rolls=rolls)

            store.scene_append(sid, post, at)
        out.append((cid, sid))
    engine.dispose()
    return out


def held_after_reading(url: str, ids: list[tuple[int, int]], cache_bytes: int | None) -> tuple[int, int, int]:
    """(bytes still allocated after reading every campaign and scene, the cache's estimate, states cached)."""
    engine = make_engine(url)
    store = Store(engine, cache_bytes=cache_bytes)
    with store.reading_campaign(ids[0][0]):  # warm the engine's pool and SQLAlchemy's statement caches
        pass
    store._cache.drop(f"c:{ids[0][0]}")
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for cid, sid in ids:
        with store.reading_campaign(cid):
            pass
        with store.reading_scene(sid):
            pass
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    estimate, cached = store._cache.total, len(store._cache.streams())
    engine.dispose()
    return held, estimate, cached


def main() -> None:
    header("Folded state in memory after reading 100 campaigns (tracemalloc, after a collection)")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'table.sqlite3'}"
        ids = build(url)
        bound = BOUND_MB * 2**20
        free, free_est, free_n = held_after_reading(url, ids, None)
        held, est, n = held_after_reading(url, ids, bound)
    mib = 2**20
    print(f"  {CAMPAIGNS} campaigns, {POSTS} posts a scene: {2 * CAMPAIGNS} logs")
    print(
        f"  no bound:          {free / mib:6.2f} MiB held, estimate {free_est / mib:6.2f} MiB, {free_n} states cached"
    )
    print(f"  bound {BOUND_MB} MiB:       {held / mib:6.2f} MiB held, estimate {est / mib:6.2f} MiB, {n} states cached")
    print(f"  the estimate against the real size (no bound): {free_est / free:.2f}x")
    print()
    target(
        f"memory after reading 100 campaigns under the cache bound ({BOUND_MB} MiB; STORYMASTER_CACHE_MB)",
        f"{held / mib:.2f} MiB (no bound: {free / mib:.2f} MiB)",
        f"{held / bound:.2f}x of bound",
        held <= bound,
    )


if __name__ == "__main__":
    main()
