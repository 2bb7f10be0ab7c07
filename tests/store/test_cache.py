"""Folded state is evicted least recently used first, past a bound on its estimated size (issue 17)."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

from storymaster.play import campaign as cc
from storymaster.store import Store, make_engine, migrate
from storymaster.store.repo import ENTRY_OVERHEAD, JSON_FACTOR, _Cache, entry_size

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC).isoformat()


class _S:  # a stand-in state (the cache never looks inside)
    pass


def test_entry_size_is_the_documented_estimate() -> None:
    assert entry_size(0) == ENTRY_OVERHEAD
    assert entry_size(100) == ENTRY_OVERHEAD + 100 * JSON_FACTOR


def test_the_least_recently_used_go_first() -> None:
    cache = _Cache(max_bytes=250)
    a, b, c, d = _S(), _S(), _S(), _S()
    cache.put("a", a, 100)
    cache.put("b", b, 100)
    assert cache.streams() == ["a", "b"] and cache.total == 200
    cache.put("c", c, 100)  # 300 > 250: "a", the least recently used, goes
    assert cache.streams() == ["b", "c"] and cache.total == 200
    assert cache.get("b") is b  # reading "b" makes "c" the oldest
    cache.put("d", d, 100)
    assert cache.streams() == ["b", "d"]
    assert cache.get("a") is None and cache.get("c") is None


def test_the_state_just_used_stays_even_alone_over_the_bound() -> None:
    cache = _Cache(max_bytes=250)
    cache.put("a", _S(), 100)
    big = _S()
    cache.put("big", big, 1000)
    assert cache.streams() == ["big"] and cache.total == 1000
    cache.put("a", _S(), 10)  # and it goes as soon as another is used
    assert cache.streams() == ["a"] and cache.total == 10


def test_growth_counts_only_for_the_cached_state() -> None:
    cache = _Cache(max_bytes=None)
    old, new = _S(), _S()
    cache.put("a", old, 100)
    cache.put("a", new, 40)  # a refold replaces the state: its size starts again
    assert cache.total == 40
    cache.grow("a", old, 500)  # a write folded into a state no longer cached: not counted
    assert cache.total == 40
    cache.grow("a", new, 60)
    assert cache.total == 100
    cache.drop("a")
    assert cache.total == 0 and cache.streams() == []


def test_stream_locks_do_not_outlive_their_holders() -> None:
    cache = _Cache()
    held = cache.lock("s:1")
    assert cache.lock("s:1") is held  # one lock per stream while anyone holds it
    for i in range(100):
        with cache.lock(f"s:{i + 2}"):
            pass
    gc.collect()
    assert len(cache._locks) == 1


def _campaigns(store: Store, tally, n: int) -> tuple[list[int], int, int]:
    gm, *players = (store.create_user(name=f"u{k}", email=None, password_hash="x", at=NOW) for k in range(4))
    cids = []
    for i in range(n):
        drafts = cc.create_campaign(gm, "gm", name=f"C{i}", system=tally, house_rules={})
        cid = store.create_campaign(name=f"C{i}", system="tally", drafts=drafts, at=NOW).campaign
        for j in range(i % 3):
            user = players[j]
            store.campaign_append(cid, lambda c, u=user: cc.add_member(c, gm, user=u, name=f"p{u}", role="player"), NOW)
        cids.append(cid)
    return cids, gm, players[2]


def _read(store: Store, cid: int):
    with store.reading_campaign(cid) as state:
        return state


def test_evicted_state_refolds_identically_and_writes_still_land(tmp_path, tally) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 't.sqlite3'}")
    migrate(engine)
    small = Store(engine, cache_bytes=3 * entry_size(400))  # room for about one campaign
    cids, gm, late = _campaigns(small, tally, 8)
    unbounded = Store(engine, cache_bytes=None)
    for _ in range(2):
        for cid in cids:
            state = _read(small, cid)
            assert small._cache.total <= small._cache.max_bytes or small._cache.streams() == [f"c:{cid}"]
            assert state == _read(unbounded, cid)  # folded again from the log, equal field by field
    assert len(small._cache.streams()) < len(cids)
    assert len(unbounded._cache.streams()) == len(cids)
    first = cids[0]
    assert f"c:{first}" not in small._cache.streams()  # evicted: the write folds it from the log
    small.campaign_append(first, lambda c: cc.add_member(c, gm, user=late, name="late", role="player"), NOW)
    assert _read(small, first) == _read(unbounded, first)
    assert any(m.name == "late" for m in _read(small, first).members.values())


def test_the_bound_comes_from_the_settings_and_the_environment(tmp_path, monkeypatch) -> None:
    from storymaster.web.app import create_app
    from storymaster.web.factory import settings_from_env
    from storymaster.web.settings import Settings

    assert Settings(database_url="sqlite://").cache_mb == 256
    monkeypatch.setenv("STORYMASTER_DATABASE_URL", f"sqlite:///{tmp_path / 'e.sqlite3'}")
    monkeypatch.setenv("STORYMASTER_CACHE_MB", "3")
    settings = settings_from_env()
    assert settings.cache_mb == 3
    app = create_app(settings)
    assert app.state.store._cache.max_bytes == 3 * 2**20
