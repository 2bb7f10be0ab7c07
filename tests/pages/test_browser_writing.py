"""Writing and rolling at the table in Debian's Chromium (issue 18), from the real form.

Paragraphs and markup typed in the composer; three inline rolls in one post, their odds shown
while typing, each rolled by the server and verifiable in the export; a readers-only block that
reaches its reader and nobody else (the page, the live update, and the raw responses of the API,
feed, digest and exports, fetched with each reader's own session); a refused post that keeps the
draft; a draft kept in the browser across a reload; closing with confirmation.
"""

from __future__ import annotations

import json
import re

import pytest
from pages.browser import CHROMIUM, CHROMIUM_ARGS, TableServer
from pages.pagekit import build_table
from playwright.sync_api import Page, expect, sync_playwright

from storymaster.play.verify import verify_export
from storymaster.web import Settings, create_app

pytestmark = pytest.mark.slow
PASSWORD = "correct horse battery"
SECRET = "the ledger is under the third floorboard"
FAST_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_cost": 1024}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The table made through the pages in this process, then served by a real server on the same database."""
    url = f"sqlite:///{tmp_path_factory.mktemp('writing') / 'table.sqlite3'}"
    app = create_app(Settings(database_url=url, **FAST_ARGON2))
    t = build_table(app)
    r = t.gm.post(
        f"/campaigns/{t.cid}/scenes",
        {"title": "The market", "mode": "free", "cast": [t.chars["Alis"], t.chars["Bobo"]]},
    )
    assert r.status_code == 303, r.text
    market = int(r.headers["location"].rsplit("/", 1)[1])
    for p in (t.gm, t.alice, t.bob, t.observer, t.outsider):
        p.client.__exit__(None, None, None)
    server = TableServer(url)
    yield server, t, market
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def signed_in(browser, base: str, name: str) -> Page:
    page = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900}).new_page()
    page.goto("/login")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile("/campaigns$"))
    return page


def raw(page: Page, path: str) -> str:
    r = page.context.request.get(path)
    assert r.ok, (path, r.status)
    return r.text()


def test_writing_and_rolling_from_the_real_form(world, browser):
    server, t, market = world
    base = server.url
    scene = f"/scenes/{market}"
    alice, bob, olga, gm = (signed_in(browser, base, n) for n in ("alice", "bob", "olga", "gm"))
    for p in (alice, bob, olga, gm):
        p.goto(scene)
    form = alice.locator("form.composer")

    # --- choosing a reader makes the post private, and the page says so; unticking goes back
    form.locator("input[name=kind][value=ic]").check()
    form.get_by_label(re.compile(r"bob \(")).check()
    expect(form.locator("input[name=kind][value=private]")).to_be_checked()
    expect(alice.locator("#private-note")).to_contain_text("This post is private: only bob and you read it")
    form.locator("input[name=kind][value=ic]").check()
    expect(form.get_by_label(re.compile(r"bob \("))).not_to_be_checked()
    expect(alice.locator("#private-note")).to_contain_text("everyone in the campaign reads")

    # --- bad notation: refused, the message at the roll, the draft kept
    form.get_by_label("Speaking as").select_option(label="Alis")
    bad = "Alis tries.\n\nShe rolls [[2d6+ Sword]]."
    form.get_by_label("Text", exact=True).fill(bad)
    expect(alice.locator("#inline-odds")).to_contain_text("inline roll 1", timeout=10_000)
    form.get_by_role("button", name="Post", exact=True).click()
    expect(alice.locator("#post-error")).to_contain_text("inline roll 1")
    expect(alice.locator("#post-error")).to_contain_text("line 3")
    expect(alice.locator("form.composer textarea[name=text]")).to_have_value(bad)

    # --- the real post: paragraphs, markup, three inline rolls, a readers-only block for Bobo
    text = (
        "Alis steps into the market.\n\n"
        f"[private=Bobo]{SECRET}[/private]\n\n"
        'She *haggles* hard. "Three coins, no more." [[2d6+3 Haggle]]\n'
        "/r 1d20+2 Notice | gm\n"
        "and a last try [roll=Luck]d100[/roll]\n\n"
        "Then she leaves."
    )
    form = alice.locator("form.composer")
    form.locator("input[name=kind][value=ic]").check()
    form.get_by_label("Speaking as").select_option(label="Alis")
    form.get_by_label("Text", exact=True).fill(text)
    odds = alice.locator("#inline-odds li")
    expect(odds).to_have_count(3, timeout=10_000)  # each inline roll's exact odds while typing
    expect(odds.nth(0)).to_contain_text("Roll 1 (Haggle): 2d6+3 gives 5 to 15, average 10.00")
    expect(odds.nth(1)).to_contain_text("1d20+2 gives 3 to 22")
    expect(odds.nth(2)).to_contain_text("Roll 3 (Luck): d100 gives 1 to 100, average 50.50")
    form.get_by_role("button", name="Post", exact=True).click()
    post = alice.locator("#story article.post").last
    expect(post).to_contain_text("Then she leaves.")
    pid = int(post.get_attribute("id").split("-")[1])

    # paragraphs survived the browser's \r\n; Markdown rendered; dialogue in the speaker's colour
    body = post.locator(".text")
    expect(body.locator("p").first).to_have_text("Alis steps into the market.")
    expect(body.locator("em")).to_have_text("haggles")
    expect(body.locator("span.say")).to_have_text('"Three coins, no more."')
    # three rolls inline: the total shown, every die on hover (title) and in a details element below
    inline = body.locator("a.iroll")
    expect(inline).to_have_count(3)
    for n in (1, 2, 3):
        link = inline.nth(n - 1)
        assert link.get_attribute("href") == f"#roll-{pid}-{n}"
        assert re.search(r"\d", link.get_attribute("title"))
        expect(alice.locator(f"#roll-{pid}-{n} details")).to_have_count(1)
    expect(body.locator(".readers-only")).to_contain_text(SECRET)

    # --- live: the observer's open page gets the post, without the block
    expect(olga.locator("#story")).to_contain_text("Then she leaves.", timeout=15_000)
    assert SECRET not in olga.content()
    expect(olga.locator(f"#post-{pid} .readers-only.hidden")).to_contain_text("a passage for Bobo only")
    expect(bob.locator("#story")).to_contain_text(SECRET, timeout=15_000)
    # the gm-visibility roll: hidden from the observer, shown to the GM
    expect(olga.locator(f"#post-{pid} .iroll.hidden")).to_have_count(1)
    gm.reload()
    expect(gm.locator(f"#post-{pid} a.iroll")).to_have_count(3)
    assert SECRET not in gm.content()

    # --- raw responses, each with the reader's own session: only alice and bob ever get the block
    paths = [
        scene,
        f"{scene}/story",
        f"/api/scenes/{market}/posts",
        f"/api/scenes/{market}/log",
        f"/api/scenes/{market}/feed.atom",
        f"/api/scenes/{market}/events?after=0&max_seconds=0.2",
        f"/api/scenes/{market}/export.json",
        f"/api/scenes/{market}/export.md",
        f"/api/scenes/{market}/export.html",
        f"/api/campaigns/{t.cid}/export.json",
        "/api/me/digest",
    ]
    for page, reads in ((alice, True), (bob, True), (olga, False), (gm, False)):
        for path in paths:
            got = raw(page, path)
            if path == "/api/me/digest" and page is alice:
                continue  # a digest lists what others wrote
            assert (SECRET in got) == reads, (path, reads)

    # --- a draft survives a reload (kept in this browser while typing)
    form = bob.locator("form.composer")
    form.get_by_label("Text", exact=True).fill("Bobo mutters something\n\nabout the ledger.")
    bob.wait_for_timeout(600)
    bob.reload()
    expect(bob.locator("form.composer textarea[name=text]")).to_have_value(
        "Bobo mutters something\n\nabout the ledger."
    )
    expect(bob.locator("#draft-note")).to_contain_text("Your unsent draft is back")
    bob.get_by_role("button", name="Aside (OOC)").click()  # the toolbar inserts at the cursor
    expect(bob.locator("form.composer textarea[name=text]")).to_have_value(re.compile(r"\[ooc\]\[/ooc\]"))

    # --- the GM closes the scene, after confirming; every export verifies, with the three rolls replayed
    gm.get_by_role("button", name="Close the scene and reveal its seed").click()
    assert gm.locator("#seed").count() == 0  # the box is required: nothing was sent
    gm.get_by_label("Yes, close it").check()
    gm.get_by_role("button", name="Close the scene and reveal its seed").click()
    expect(gm.locator("#seed")).to_be_visible()
    key = json.loads(raw(gm, "/.well-known/storymaster-key"))["public"]
    for page in (alice, bob, olga, gm):
        doc = json.loads(raw(page, f"/api/scenes/{market}/export.json"))
        report = verify_export(doc, key=key)
        assert report["ok"] is True
        posts = doc["scenes"][0]["posts"]
        mine = next(p for p in posts if p["id"] == pid)
        assert sorted(r["inline"] for r in mine["rolls"]) == [1, 2, 3]
        assert (SECRET in json.dumps(doc)) == (page in (alice, bob))
    md = raw(olga, f"/api/scenes/{market}/export.md")
    assert "**Alis:**" in md and "[a passage for Bobo only]" in md
