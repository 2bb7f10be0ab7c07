"""Every page with every role: the pages go through the API's own checks, and show no more than it would."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from pages.pagekit import Table


def pages(t: Table) -> dict[str, str]:
    return {
        "campaign": f"/campaigns/{t.cid}",
        "scene": f"/scenes/{t.sid}",
        "story": f"/scenes/{t.sid}/story",
        "sheet": f"/campaigns/{t.cid}/characters/{t.chars['Alis']}",
        "builder": f"/campaigns/{t.cid}/characters/new",
        "edit": f"/campaigns/{t.cid}/characters/{t.chars['Alis']}/edit",
    }


def test_anonymous_is_sent_to_sign_in(app, table):
    with TestClient(app) as anon:
        for url in [*pages(table).values(), "/campaigns", table.invite]:
            r = anon.get(url, follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"].startswith("/login?next="), url
        assert anon.get("/").status_code == 200
        assert anon.get("/verify").status_code == 200
        assert anon.get("/login").status_code == 200


def test_outsider_gets_403_everywhere(table):
    for name, url in pages(table).items():
        r = table.outsider.get(url)
        assert r.status_code == 403, (name, r.status_code)
        assert "not a member" in r.text
        assert "At the gate" not in r.text and "Alis" not in r.text


def test_observer_reads_but_cannot_write(table):
    obs = table.observer
    assert obs.get(pages(table)["campaign"]).status_code == 200
    scene = obs.get(pages(table)["scene"])
    assert scene.status_code == 200
    assert 'id="compose"' not in scene.text and 'id="gm"' not in scene.text
    assert obs.get(pages(table)["edit"]).status_code == 403
    r = obs.post(f"/scenes/{table.sid}/posts", {"kind": "ooc", "text": "hi", "action": "post"})
    assert r.status_code == 403


def test_player_has_no_gm_tools(table):
    alice = table.alice
    scene = alice.get(pages(table)["scene"])
    assert scene.status_code == 200 and 'id="compose"' in scene.text and 'id="gm"' not in scene.text
    campaign = alice.get(pages(table)["campaign"]).text
    assert "GM notes" not in campaign and 'id="invites"' not in campaign and "Make an invitation link" not in campaign
    assert alice.get(f"/campaigns/{table.cid}/characters/{table.chars['Bobo']}/edit").status_code == 403
    assert alice.get(pages(table)["edit"]).status_code == 200
    for url, data in [
        (f"/scenes/{table.sid}/close", {}),
        (f"/scenes/{table.sid}/fight", {"action": "start", "side1": table.chars["Alis"], "side2": table.chars["Bobo"]}),
        (f"/campaigns/{table.cid}/house-rules", {"house_rules": ""}),
        (f"/campaigns/{table.cid}/members", {"user": "oscar", "role": "player"}),
        (f"/campaigns/{table.cid}/notes", {"text": "mine"}),
        (f"/campaigns/{table.cid}/invites", {"role": "player"}),
        (f"/campaigns/{table.cid}/invites/1/revoke", {}),
    ]:
        r = alice.post(url, data)
        assert r.status_code == 403, url


def test_gm_sees_everything_and_the_invite(table):
    gm = table.gm
    for name, url in pages(table).items():
        assert gm.get(url).status_code == 200, name
    scene = gm.get(pages(table)["scene"]).text
    assert 'id="gm"' in scene and "Close the scene" in scene
    campaign = gm.get(pages(table)["campaign"]).text
    assert 'id="invites"' in campaign and "Make an invitation link" in campaign
    assert 'id="invite"' not in campaign  # a link is shown once, when it is made (only its hash is kept)


def test_private_posts_and_blind_rolls_stay_hidden(table):
    gm, alice, bob = table.gm, table.alice, table.bob
    r = gm.post(
        f"/scenes/{table.sid}/posts",
        {
            "kind": "ic",
            "text": "The gate looms.",
            "roll_kind": "dice",
            "dice": "1d1000",
            "roll_label": "ambush",
            "visibility": "blind",
            "action": "post",
        },
    )
    assert r.status_code == 303
    r = alice.post(
        f"/scenes/{table.sid}/posts",
        {"kind": "private", "text": "psst: I pocket the key", "to": [gm.id], "action": "post"},
    )
    assert r.status_code == 303
    gm_view = gm.get(f"/scenes/{table.sid}").text
    total = re.search(r'ambush <code>1d1000</code>: <strong class="result">(\d+)</strong>', gm_view).group(1)
    assert "psst" in gm_view
    for p in (alice, bob, table.observer):
        page = p.get(f"/scenes/{table.sid}").text + p.get(f"/scenes/{table.sid}/story").text
        assert "hidden from you" in page
        assert f'<strong class="result">{total}</strong>' not in page
        assert ("psst" in page) == (p is alice)
    # the JSON API agrees with the page
    api = bob.client.get(f"/api/scenes/{table.sid}/posts").json()
    assert all("psst" not in (p.get("text") or "") for p in api)


def test_join_link_needs_the_right_token(table):
    r = table.outsider.get(f"/join/{table.cid}/{'0' * 32}")
    assert r.status_code == 404
    r = table.outsider.post(f"/join/{table.cid}/{'0' * 32}")
    assert r.status_code == 404
    assert table.outsider.get(f"/campaigns/{table.cid}").status_code == 403
    assert table.outsider.post(table.invite).status_code == 303
    assert table.outsider.get(f"/campaigns/{table.cid}").status_code == 200


@pytest.mark.parametrize("role", ["gm", "alice"])
def test_forms_need_the_csrf_token(table, role):
    p = getattr(table, role)
    r = p.post(f"/scenes/{table.sid}/posts", {"kind": "ooc", "text": "hi", "action": "post"}, csrf=False)
    assert r.status_code == 403 and "expired" in r.text
    r = p.post(f"/scenes/{table.sid}/posts", {"kind": "ooc", "text": "hi", "action": "post", "csrf": "forged"})
    assert r.status_code == 403


def test_sign_out_ends_the_session(table):
    alice = table.alice
    assert alice.post("/logout", csrf=False).status_code == 403  # CSRF on sign-out too
    r = alice.post("/logout")
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert alice.get("/campaigns").status_code == 303
    assert alice.client.get("/api/me").status_code == 401


def test_next_never_leaves_the_site(app):
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        c.post("/signup", data={"name": "nell", "password": "long enough pw"})
        for bad in ("//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)"):
            r = c.post(
                "/login", data={"name": "nell", "password": "long enough pw", "next": bad}, follow_redirects=False
            )
            assert r.headers["location"] == "/campaigns", bad
