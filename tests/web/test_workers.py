"""Two app instances on one database behave as two worker processes: each sees the other's writes at once."""

from __future__ import annotations

import itertools

from fastapi.testclient import TestClient
from web.apikit import build_table

from storymaster.web import Settings, create_app


def test_two_workers_share_one_log(db_url, tally, clock) -> None:
    settings = Settings(database_url=db_url, argon2_time_cost=1, argon2_memory_cost=1024)
    with TestClient(create_app(settings, clock=clock)) as a, TestClient(create_app(settings, clock=clock)) as b:
        t = build_table(a)
        h = t.p1.h
        # warm both caches, then write on one and read on the other, back and forth
        assert (
            a.get(f"/api/scenes/{t.scene}/posts", headers=h).json()
            == b.get(f"/api/scenes/{t.scene}/posts", headers=h).json()
            == []
        )
        for i in range(3):
            writer, reader = (a, b) if i % 2 == 0 else (b, a)
            r = writer.post(
                f"/api/scenes/{t.scene}/posts",
                json={"kind": "ooc", "text": f"post {i}", "rolls": [{"dice": "d6"}]},
                headers=h,
            )
            assert r.status_code == 201, r.text
            seen = reader.get(f"/api/scenes/{t.scene}/posts", headers=h).json()
            assert [p["text"] for p in seen] == [f"post {j}" for j in range(i + 1)]
        counters = [p["rolls"][0]["counter"] for p in b.get(f"/api/scenes/{t.scene}/posts", headers=h).json()]
        assert all(x[1] == y[0] for x, y in itertools.pairwise(counters))  # one stream across both workers
        pid = seen[0]["id"]
        assert b.patch(f"/api/scenes/{t.scene}/posts/{pid}", json={"text": "post zero"}, headers=h).status_code == 200
        assert a.get(f"/api/scenes/{t.scene}/posts/{pid}", headers=h).json()["history"][0]["text"] == "post 0"
        assert (
            b.post(
                f"/api/campaigns/{t.campaign}/characters", json={"sheet": {"name": "Dax"}}, headers=t.p2.h
            ).status_code
            == 201
        )
        assert "Dax" in [c["name"] for c in a.get(f"/api/campaigns/{t.campaign}/characters", headers=h).json()]
