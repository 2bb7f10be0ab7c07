"""The reader's pages without a browser (issue 18 items 7, 8; issue 16 item 6's e-mail): the dashboard's
counts for every role, a closed scene shown closed, the story's pages as plain links past the old
1,000-post cap, and the account page's e-mail confirmed through a real SMTP server before any digest."""

from __future__ import annotations

import re
import socket
from datetime import UTC, datetime

import pytest
from pages.conftest import FAST_ARGON2
from pages.pagekit import Table, build_table

from storymaster.play.reading import PAGE_SIZE
from storymaster.web import Settings, create_app


def _row(html: str, sid: int) -> str:
    m = re.search(rf'<tr[^>]*data-scene="{sid}".*?</tr>', html, re.S)
    assert m, f"no row for scene {sid}"
    return m.group(0)


def _owed_unread(html: str, sid: int) -> tuple[int, int]:
    row = _row(html, sid)
    return int(re.search(r'data-owed="(\d+)"', row).group(1)), int(re.search(r'data-unread="(\d+)"', row).group(1))


def test_the_dashboard_for_every_role(table: Table) -> None:
    t = table
    gm_post = {"kind": "ic", "text": "The gate creaks open.", "action": "post"}
    assert t.gm.post(f"/scenes/{t.sid}/posts", gm_post).status_code == 303
    secret = {"kind": "private", "to": [str(t.gm.id)], "text": "Bobo hides a knife.", "action": "post"}
    assert t.bob.post(f"/scenes/{t.sid}/posts", secret).status_code == 303
    expected = {  # (posts owed, unread), worked out from who posted what and who may read it
        "gm": (0, 1),  # waiting on both characters; Bobo's private post is to the GM
        "alice": (1, 1),  # Alis owes; the GM's post (not Bobo's private one)
        "bob": (1, 1),  # Bobo owes; the GM's post (his own does not count)
        "olga": (0, 1),  # the observer reads the GM's post
    }
    for who in (t.gm, t.alice, t.bob, t.observer):
        for url in ("/campaigns", f"/campaigns/{t.cid}"):
            page = who.get(url).text
            assert _owed_unread(page, t.sid) == expected[who.name], (who.name, url)
            owed, unread = expected[who.name]
            title = re.search(r"<title>(.*?)</title>", page).group(1)
            assert title.startswith(f"({owed + unread}) "), (who.name, title)
    assert "UTC</time>" in _row(t.alice.get("/campaigns").text, t.sid)  # the deadline, absolute without scripts
    assert t.outsider.get(f"/campaigns/{t.cid}").status_code == 403
    # reading the scene page clears the count
    assert t.alice.get(f"/scenes/{t.sid}").status_code == 200
    assert _owed_unread(t.alice.get("/campaigns").text, t.sid) == (1, 0)
    # a closed scene is shown closed (it used to be listed as open)
    assert t.gm.post(f"/scenes/{t.sid}/close", {"confirm": "yes"}).status_code == 303
    for who in (t.gm, t.alice):
        row = _row(who.get(f"/campaigns/{t.cid}").text, t.sid)
        assert ">closed<" in row and "open" not in row
        assert _owed_unread(who.get("/campaigns").text, t.sid)[0] == 0


def test_story_pages_go_past_the_old_cap_as_plain_links(table: Table, app) -> None:
    t = table
    from storymaster.play import scene as cmd
    from storymaster.rules import get_system

    store, system = app.state.store, get_system("fuzzy")
    r = t.gm.post(f"/campaigns/{t.cid}/scenes", {"title": "The long road", "mode": "free"})
    sid = int(r.headers["location"].rsplit("/", 1)[1])
    n = 1203

    def decide(c, s, seed):
        out = []
        for i in range(n):
            out += cmd.write_post(
                c, s, t.bob.id, kind="ooc", text=f"Line {i}.", now=datetime.now(UTC), seed=seed, system=system
            )
        return out

    store.scene_append(sid, decide, datetime.now(UTC).isoformat())
    page = t.alice.get(f"/scenes/{sid}").text
    shown = re.findall(r"<p>Line (\d+)\.</p>", page)
    assert shown == [str(i) for i in range(n - PAGE_SIZE, n)]  # the newest posts, past the old 1,000 cap
    assert 'id="compose"' in page and page.index('id="compose"') > page.index(f"Line {n - 1}.")
    seen = list(map(int, shown))
    url = re.search(r'href="(/scenes/\d+\?before=\d+)" rel="prev"', page).group(1)
    while url:
        page = t.alice.get(url).text
        assert 'id="compose"' not in page and 'rel="next"' in page
        seen[:0] = map(int, re.findall(r"<p>Line (\d+)\.</p>", page))
        m = re.search(r'href="(/scenes/\d+\?before=\d+)" rel="prev"', page)
        url = m.group(1) if m else None
    assert seen == list(range(n))
    # a later page from an earlier one, and junk cursors are a clear 422, not a 500
    later = re.search(r'href="(/scenes/\d+\?after=\d+)" rel="next"', page).group(1)
    assert "<p>Line 50.</p>" in t.alice.get(later).text
    for junk in ("?before=x", "?after=-1", "?before=99999999999"):
        assert t.alice.get(f"/scenes/{sid}{junk}").status_code == 422


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


def test_the_account_page_confirms_an_address_through_a_real_smtp_server(tmp_path, smtp_server) -> None:
    port, got = smtp_server
    app = create_app(
        Settings(
            database_url=f"sqlite:///{tmp_path / 'table.sqlite3'}",
            smtp_host="127.0.0.1",
            smtp_port=port,
            **FAST_ARGON2,
        )
    )
    t = build_table(app)
    page = t.alice.get("/account").text
    assert "No address" in page and "Your account" in page
    r = t.alice.post("/account/email", {"email": "alice@"})
    assert r.status_code == 422 and "not an e-mail address" in r.text and not got
    r = t.alice.post("/account/email", {"email": "Alice@Example.COM"})
    assert r.status_code == 200 and "confirmation link is on its way to Alice@example.com" in r.text
    assert "not confirmed" in r.text
    assert len(got) == 1 and got[0]["To"] == "Alice@example.com"
    link = re.search(r"(/account/email/confirm\?token=\S+)", got[0].get_payload(decode=True).decode()).group(1)
    # the link is the account's own: another signed-in user cannot use it
    assert t.bob.get(link).status_code == 404
    r = t.alice.get(link)
    assert r.status_code == 200 and "Confirmed: your digests go to Alice@example.com" in r.text
    assert ">confirmed<" in t.alice.get("/account").text
    assert t.alice.get(link).status_code == 404  # once
    # digest choice and time zone
    r = t.alice.post("/account/settings", {"digest": "turns", "time_zone": "Mars/Olympus"})
    assert r.status_code == 422 and "no time zone" in r.text
    assert t.alice.post("/account/settings", {"digest": "turns", "time_zone": "Europe/Paris"}).status_code == 200
    assert t.alice.get("/api/me/settings").json() == {
        "email": "Alice@example.com",
        "confirmed": True,
        "digest": "turns",
        "time_zone": "Europe/Paris",
    }
    # deadlines read in that zone (24 h after the GM's post; Paris is UTC+1 in winter, +2 in summer)
    assert t.gm.post(f"/scenes/{t.sid}/posts", {"kind": "ic", "text": "Go.", "action": "post"}).status_code == 303
    row = _row(t.alice.get("/campaigns").text, t.sid)
    assert "(Europe/Paris)" in row
    # password change keeps this session and refuses a wrong current password
    r = t.alice.post("/account/password", {"current": "wrong password", "new": "a new long passphrase"})
    assert r.status_code == 403 and "current password is wrong" in r.text
    r = t.alice.post("/account/password", {"current": "correct horse battery", "new": "a new long passphrase"})
    assert r.status_code == 200 and "password is changed" in r.text
    # a read-only token, shown once, listed after, revocable
    r = t.alice.post("/account/tokens", {"name": "feeds", "scope": "read"})
    token = re.search(r'id="new-token" readonly value="([^"]+)"', r.text).group(1)
    feed = t.alice.client.get(f"/api/scenes/{t.sid}/feed.atom?token={token}")
    assert feed.status_code == 200
    tid = t.alice.get("/api/tokens").json()[-1]["id"]
    assert "read-only" in t.alice.get("/account").text and token not in t.alice.get("/account").text
    assert t.alice.post(f"/account/tokens/{tid}/revoke").status_code == 303
    assert t.alice.client.get(f"/api/scenes/{t.sid}/feed.atom?token={token}").status_code == 401
    for p in (t.gm, t.alice, t.bob, t.observer, t.outsider):
        p.client.__exit__(None, None, None)
