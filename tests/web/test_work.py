"""The compute pool: a job past the budget is stopped and answered with 422 too-much-work, its worker
replaced; memory past the cap is the same 422; errors come back as themselves; and while a job runs the
server's event loop keeps answering (on SQLite and PostgreSQL)."""

from __future__ import annotations

import functools
import operator
import time

import pytest
from fastapi.testclient import TestClient
from web import workkit
from web.apikit import build_table

from storymaster.play.errors import Invalid
from storymaster.web import Settings, create_app, jobs
from storymaster.web.work import ComputePool, TooMuchWork, Work

FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture
def pool():
    p = ComputePool(1, 512)
    yield p
    p.close()


def test_a_job_past_the_budget_is_stopped_and_its_worker_replaced(pool, tmp_path) -> None:
    work = Work(pool, 1.0)
    assert work.call(operator.add, 2, 3, what="odds preview") == 5
    began = time.monotonic()
    with pytest.raises(TooMuchWork) as caught:
        work.call(workkit.hold, str(tmp_path / "started"), str(tmp_path / "never"), what="odds preview")
    took = time.monotonic() - began
    assert caught.value.code == "too-much-work" and caught.value.status == 422
    assert "1 s" in caught.value.message and "fewer dice" in (caught.value.hint or "")
    assert took < 30  # the job would wait 60 s: it was stopped at the budget, not waited for
    assert pool.killed == 1
    assert work.call(operator.mul, 6, 7, what="odds preview") == 42  # a fresh worker took its place
    assert pool.started == 2


def test_memory_past_the_cap_is_too_much_work(pool) -> None:
    work = Work(pool, 30.0)
    with pytest.raises(TooMuchWork) as caught:
        work.call(workkit.grab, 1024, what="forecast")  # 1 GiB against a 512 MiB cap
    assert "memory" in caught.value.message
    assert work.call(workkit.grab, 16, what="forecast") == 16 * 2**20  # the worker lives on


def test_errors_come_back_as_themselves(pool) -> None:
    work = Work(pool, 30.0)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"
    with pytest.raises(Invalid) as caught:
        work.call(jobs.parse_document, bomb, "house rules", 262_144, what="YAML")
    assert "not valid YAML" in caught.value.message and "anchors (&a) are not accepted" in (caught.value.hint or "")
    with pytest.raises(Invalid) as caught:
        work.call(jobs.parse_document, "a: [" + "1, " * 60 + "1]", "house rules", 100, what="YAML")
    assert caught.value.code == "too-large" and "more than the 100" in caught.value.message
    assert work.call(jobs.parse_document, "a: 1\nb: [x, y]", "house rules", 100, what="YAML") == {
        "a": 1,
        "b": ["x", "y"],
    }


def test_systems_travel_by_their_entry_point(pool, tally) -> None:
    """The test system is registered only in this process (a patched entry-point list): its entry point's value
    loads it in the worker all the same."""
    work = Work(pool, 30.0)
    ref = jobs.system_ref("tally")
    assert ref == ("tally", "play.tally:SYSTEM")
    out = work.call(jobs.odds_preview, ref, {"dice": "2d6"}, {}, what="odds preview")
    assert out["odds"]["denominator"] == 36 and out["odds"]["min"] == 2 and out["odds"]["max"] == 12


@pytest.fixture
def quick_app(db_url, tally):
    return create_app(Settings(database_url=db_url, work_seconds=2.0, **FAST_ARGON2))


def test_the_event_loop_answers_while_a_preview_runs(quick_app, monkeypatch, tmp_path) -> None:
    started, release = tmp_path / "started", tmp_path / "release"
    monkeypatch.setattr(jobs, "odds_preview", functools.partial(workkit.hold, str(started), str(release)))
    with TestClient(quick_app, raise_server_exceptions=False) as client:
        t = build_table(client)
        box: dict[str, object] = {}

        def send() -> None:
            box["preview"] = client.post(f"/api/scenes/{t.scene}/preview", json={"dice": "2d6"}, headers=t.p1.h)

        import threading

        thread = threading.Thread(target=send)
        thread.start()
        assert workkit.wait_for(started), "the preview's job never started"
        health = client.get("/api/health")  # the same client: the same event loop as the held preview
        release.touch()
        thread.join(60)
    assert health.status_code == 200
    preview = box["preview"]
    assert preview.status_code == 200 and preview.json()["released"] is True  # answered before the release


def test_a_preview_past_the_budget_answers_422_and_the_table_goes_on(quick_app, monkeypatch, tmp_path) -> None:
    started = tmp_path / "started"
    with TestClient(quick_app, raise_server_exceptions=False) as client:
        t = build_table(client)
        monkeypatch.setattr(jobs, "odds_preview", functools.partial(workkit.hold, str(started), str(tmp_path / "x")))
        url = f"/api/scenes/{t.scene}/preview"
        r, probes, _sent, answered = workkit.while_in_flight(
            client, lambda: client.post(url, json={"dice": "2d6"}, headers=t.p1.h)
        )
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["type"].endswith("/too-much-work") and "2 s" in body["detail"] and body["hint"]
        assert started.exists()
        # held for the whole budget (2 s): the probes sent meanwhile were answered before it was
        assert probes and all(status == 200 for *_, status in probes)
        assert any(done < answered for _, done, _ in probes)
        monkeypatch.undo()
        r = client.post(url, json={"dice": "2d6"}, headers=t.p1.h)
        assert r.status_code == 200 and r.json()["odds"]["denominator"] == 36
