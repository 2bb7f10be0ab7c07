"""Live updates (SSE), the Atom feed, e-mail digests against a local SMTP server, sessions and CSRF."""

from __future__ import annotations

import json
import re
import socket
import xml.etree.ElementTree as ET

import pytest
from web.apikit import Table, make_user


def _events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.split("\n\n"):
        name = data = None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if name and data is not None:
            out.append((name, data))
    return out


def test_events_replay_what_each_reader_may_see(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ic", character=t.c1, text="Arn waves.")
    t.post(t.p1, kind="private", to=[t.gm.id], text="psst")
    for who, expected in ((t.gm, ["Arn waves.", "psst"]), (t.p2, ["Arn waves."])):
        text = t.client.get(f"/api/scenes/{t.scene}/events?after=0&max_seconds=0.2", headers=who.h).text
        events = _events(text)
        assert events[0][0] == "hello"
        assert [d["text"] for n, d in events if n == "post"] == expected
        assert events[-1][0] == "scene"


def test_events_resume_after_the_last_event_id(table: Table) -> None:
    t = table
    first = t.post(t.p1, kind="ooc", text="one")
    t.post(t.p1, kind="ooc", text="two")
    headers = {**t.p2.h, "Last-Event-ID": str(first["id"])}
    events = _events(t.client.get(f"/api/scenes/{t.scene}/events?max_seconds=0.2", headers=headers).text)
    assert [d["text"] for n, d in events if n == "post"] == ["two"]


def test_atom_feed(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ic", character=t.c1, text="Arn <b>waves</b> & smiles.")
    r = t.client.get(f"/api/scenes/{t.scene}/feed.atom?token={t.p2.token}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/atom+xml")
    feed = ET.fromstring(r.text)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    assert feed.find("a:title", ns).text == "At the Inn"
    content = feed.find("a:entry/a:content", ns)
    # the page's renderer: raw HTML typed in a post stays text, inside the escaped HTML content
    assert content.get("type") == "html"
    assert content.text.strip() == "<p>Arn &lt;b&gt;waves&lt;/b&gt; &amp; smiles.</p>"


@pytest.fixture
def smtp_server():
    from aiosmtpd.controller import Controller
    from aiosmtpd.handlers import Message

    got = []

    class Keep(Message):
        def handle_message(self, message):
            got.append(message)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    yield port, got
    controller.stop()


def test_digest_by_email(db_url, tally, clock, smtp_server) -> None:
    from fastapi.testclient import TestClient
    from web.apikit import build_table

    from storymaster.web import Settings, create_app

    port, got = smtp_server
    app = create_app(
        Settings(
            database_url=db_url, smtp_host="127.0.0.1", smtp_port=port, argon2_time_cost=1, argon2_memory_cost=1024
        ),
        clock=clock,
    )
    with TestClient(app) as client:
        t = build_table(client)
        sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=86400)
        t.post(t.gm, scene=sid, kind="ic", text="The storm breaks over the pass.")
        t.post(t.p2, kind="private", to=[t.gm.id], text="Bel hides the letter.")
        t.post(
            t.p2,
            kind="ooc",
            text="For you two: [private=Arn]the pass is guarded[/private] [private=The Innkeeper]bribe taken[/private]",
        )
        r = client.put("/api/me/email", json={"email": "Arn@Example.ORG"}, headers=t.p1.h)
        assert r.status_code == 200 and r.json() == {"email": "Arn@example.org", "confirmed": False, "link_sent": True}
        assert len(got) == 1 and got[0]["To"] == "Arn@example.org"  # the confirmation link, not a digest
        assert client.post("/api/me/digest", headers=t.p1.h).status_code == 409  # not confirmed yet
        from storymaster.web.notify import send_digests

        send_digests(app.state.store, app.state.settings, clock())
        assert len(got) == 1  # the timer sends nothing to an unconfirmed address
        link = re.search(r"/account/email/confirm\?token=(\S+)", got[0].get_payload(decode=True).decode()).group(1)
        assert client.post("/api/me/email/confirm", json={"token": link + "x"}, headers=t.p1.h).status_code == 404
        assert client.post("/api/me/email/confirm", json={"token": link}, headers=t.p2.h).status_code == 404
        r = client.post("/api/me/email/confirm", json={"token": link}, headers=t.p1.h)
        assert r.status_code == 200 and r.json() == {"email": "Arn@example.org", "confirmed": True}
        assert client.post("/api/me/email/confirm", json={"token": link}, headers=t.p1.h).status_code == 404  # once
        del got[:]
        r = client.post("/api/me/digest", headers=t.p1.h)
        assert r.status_code == 200 and r.json() == {"sent": True}
        assert len(got) == 1 and got[0]["To"] == "Arn@example.org"
        leaves = [p for p in got[0].walk() if not p.is_multipart()]
        parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in leaves}
        text, html = parts["text/plain"], parts["text/html"]  # the HTML part: each post through the page's renderer
        for body in (text, html):
            assert "The storm breaks over the pass." in body and "Your turn in The Long Road" in body and "Arn" in body
            assert "Bel hides the letter." not in body
            assert "the pass is guarded" in body  # a readers-only block for Arn's player
            assert "bribe taken" not in body  # and one for the GM's character: not in Arn's mail
        assert "<p>For you two:" in html and "(a passage for The Innkeeper only)" in html
        send_digests(app.state.store, app.state.settings, clock())  # (other tests' users share the PostgreSQL database)
        assert [m["To"] for m in got].count("Arn@example.org") == 1  # nothing new for Arn since his digest


def test_sessions_need_the_csrf_token(client) -> None:
    u = make_user(client)
    r = client.post("/api/session", json={"name": u.name, "password": "correct horse battery"})
    csrf = r.json()["csrf"]
    assert client.get("/api/me").status_code == 200  # reads need no token
    r = client.post("/api/campaigns", json={"name": "x", "system": "tally"})
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["detail"]
    r = client.post("/api/campaigns", json={"name": "x", "system": "tally"}, headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403
    r = client.post("/api/campaigns", json={"name": "x", "system": "tally"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201
    assert client.delete("/api/session", headers={"X-CSRF-Token": csrf}).status_code == 204
    client.cookies.clear()
    assert client.get("/api/me").status_code == 401


def test_wrong_passwords_and_taken_names(client) -> None:
    u = make_user(client)
    assert client.post("/api/session", json={"name": u.name, "password": "nope nope"}).status_code == 401
    assert client.post("/api/session", json={"name": "nobody-here", "password": "nope nope"}).status_code == 401
    r = client.post("/api/users", json={"name": u.name, "password": "another password"})
    assert r.status_code == 409 and "taken" in r.json()["detail"]
    from sqlalchemy import select

    from storymaster.store import tables

    with client.app.state.store.engine.connect() as conn:
        stored = conn.execute(select(tables.users.c.password_hash).where(tables.users.c.id == u.id)).scalar_one()
    assert stored.startswith("$argon2id$")


def test_openapi_and_landing_page(client) -> None:
    assert client.get("/openapi.json").json()["info"]["title"] == "Storymaster table"
    assert 'href="/openapi.json"' in client.get("/").text
    assert client.get("/docs").status_code == 404  # off by default: the docs page loads a script from a CDN
    systems = client.get("/api/systems").json()
    assert systems["systems"][0]["name"] == "tally"
    assert client.get("/api/systems/tally").json()["house_rules"][0]["name"] == "bonus"
    assert client.get("/api/systems/nope").status_code == 422
