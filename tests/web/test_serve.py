"""``storymaster serve`` prints the URL and seeds demos; ``make run`` runs it."""

from __future__ import annotations

import uvicorn

from storymaster.store import Store, make_engine


def test_serve_prints_the_url_and_seeds_a_demo_per_system(cli, tally, tmp_path, monkeypatch) -> None:
    calls = []
    for key in (
        "STORYMASTER_DATABASE_URL",
        "STORYMASTER_MIGRATE",
        "STORYMASTER_SMTP_HOST",
        "STORYMASTER_SMTP_PORT",
        "STORYMASTER_DIGEST_EVERY",
        "STORYMASTER_BASE_URL",
    ):
        monkeypatch.setenv(key, "")  # serve sets these for its workers; the test puts them back
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: calls.append((a, kw)))
    db = tmp_path / "demo.sqlite3"
    result = cli("serve", "--demo", "--database", str(db), "--port", "8123")
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8123/" in result.stdout and "gm       demo-gm-password" in result.stdout
    assert calls and calls[0][1]["port"] == 8123 and calls[0][1]["factory"] is True
    engine = make_engine(f"sqlite:///{db}")
    store = Store(engine)
    gm = store.user_by_name("gm")
    [campaign] = store.campaigns_of(gm.id)
    assert campaign["system"] == "tally" and campaign["role"] == "gm"
    # a system without demo data (tests/web/test_demo.py has the five that have it): the campaign, the GM and
    # two players, a closed prologue and an open scene, without characters or a fight
    prologue, sid = store.scene_ids(campaign["id"])
    with store.reading_scene(sid) as (c, s):
        assert len(s.posts) == 2 and len(c.members) == 3 and not c.characters and s.combat is None
    with store.reading_scene(prologue) as (c, s):
        assert s.closed and s.seed
    again = cli("serve", "--demo", "--database", str(db))
    assert "already there" in again.stdout  # seeding twice adds nothing
    assert len(store.campaigns_of(gm.id)) == 1
    engine.dispose()


def test_verify_reports_bad_files_plainly(cli, tmp_path) -> None:
    missing = cli("verify", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    other = cli("verify", str(tmp_path / "x.json"))
    assert other.exit_code == 2 and "not a Storymaster table export" in other.stderr
