"""In Debian's Chromium (headless, through Playwright): whose turn and what is new, and a long scene.

Issue 18 items 7, 8 and 10. A table is set up through the API (and a 3,000-post scene written straight
into the server's database, as a long campaign would have written it); a player then reads it in the
browser: the dashboard's counts (posts owed by you, unread, the deadline, a closed scene shown closed, the
count in the tab's title), the long scene's newest page with "earlier posts" pages, the reply box right
after the last post (one tap away on a phone), live updates that insert only the new post and update the
turn box, a portrait next to the character's posts, and the account page. axe-core checks each page for
serious or critical violations; screenshots at 390 and 1280 pixels go to artifacts/screenshots/.
"""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

import httpx
import pytest
from pages.browser import CHROMIUM, CHROMIUM_ARGS, TableServer, axe_source, serious_violations, shoot
from playwright.sync_api import expect, sync_playwright

pytestmark = pytest.mark.slow
PASSWORD = "correct horse battery"
LONG = 3000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('table-ux') / 'table.sqlite3'}"
    s = TableServer(url)
    s.database_url = url
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Api:
    """The API as each user (bearer tokens), for setting up the table."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        self.h: dict[str, dict[str, str]] = {}
        self.id: dict[str, int] = {}

    def user(self, name: str) -> None:
        assert self.http.post("/api/users", json={"name": name, "password": PASSWORD}).status_code == 201
        r = self.http.post("/api/session", json={"name": name, "password": PASSWORD})
        csrf = r.json()["csrf"]
        r = self.http.post("/api/tokens", json={"name": "setup"}, headers={"X-CSRF-Token": csrf})
        self.http.cookies.clear()
        self.h[name] = {"Authorization": f"Bearer {r.json()['token']}"}
        self.id[name] = self.http.get("/api/me", headers=self.h[name]).json()["id"]

    def __call__(self, method: str, path: str, who: str, expect_status: int | None = None, **kw):
        r = self.http.request(method, path, headers=self.h[who], **kw)
        assert r.status_code < 400 if expect_status is None else r.status_code == expect_status, r.text
        return r.json() if r.content and r.headers.get("content-type", "").startswith("application/json") else r


def _sheet(name: str) -> dict:
    from storymaster import safe_yaml
    from storymaster.rules import get_system
    from storymaster.web.pages.sheets import starter_sheet

    sheet = safe_yaml.load(starter_sheet(get_system("fuzzy"))) or {}
    sheet["name"] = name
    return sheet


def _fill_long_scene(database_url: str, sid: int, author: int, gm: int, n: int) -> None:
    """``n`` posts by ``author`` straight into the log (every tenth private to the GM), in batches."""
    from storymaster.play import scene as cmd
    from storymaster.rules import get_system
    from storymaster.store import Store, make_engine

    store = Store(make_engine(database_url))
    system = get_system("fuzzy")
    for start in range(0, n, 500):

        def decide(c, s, seed, start=start):
            drafts = []
            for i in range(start, min(n, start + 500)):
                kind, to = ("private", [gm]) if i % 10 == 3 else ("ooc", [])
                drafts += cmd.write_post(
                    c,
                    s,
                    author,
                    kind=kind,
                    text=f"Long post {i}.",
                    now=datetime.now(UTC),
                    seed=seed,
                    system=system,
                    to=to,
                )
            return drafts

        store.scene_append(sid, decide, datetime.now(UTC).isoformat())
    store.engine.dispose()


def _png() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (300, 300), (40, 90, 160))
    ImageDraw.Draw(img).ellipse((60, 60, 240, 240), fill=(240, 200, 80))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def test_whose_turn_what_is_new_and_a_long_scene(server, browser):
    api = Api(server.url)
    for name in ("gm", "alice", "bob"):
        api.user(name)
    cid = api("POST", "/api/campaigns", "gm", json={"name": "The Long Road", "system": "fuzzy"})["id"]
    for name in ("alice", "bob"):
        api("POST", f"/api/campaigns/{cid}/members", "gm", json={"user": name, "role": "player"})
    alis = api("POST", f"/api/campaigns/{cid}/characters", "alice", json={"sheet": _sheet("Alis")})["id"]
    bobo = api("POST", f"/api/campaigns/{cid}/characters", "bob", json={"sheet": _sheet("Bobo")})["id"]
    ford = api(
        "POST",
        f"/api/campaigns/{cid}/scenes",
        "gm",
        json={"title": "At the ford", "mode": "turn", "cast": [alis, bobo], "turn_seconds": 86400},
    )["id"]
    api("POST", f"/api/scenes/{ford}/posts", "gm", json={"kind": "ic", "text": "The river is high."})
    prologue = api("POST", f"/api/campaigns/{cid}/scenes", "gm", json={"title": "Prologue"})["id"]
    api("POST", f"/api/scenes/{prologue}/close", "gm")
    road = api("POST", f"/api/campaigns/{cid}/scenes", "gm", json={"title": "The long road"})["id"]
    _fill_long_scene(server.database_url, road, api.id["bob"], api.id["gm"], LONG)
    readable = LONG - LONG // 10  # alice does not read the tenth that is private to the GM

    axe, problems = axe_source(), {}

    def check(page, name, screenshot=True):
        found = serious_violations(page, axe)
        size = page.viewport_size
        page.set_viewport_size({"width": 390, "height": 844})  # the phone layout too
        found += [f"(at 390 px) {f}" for f in serious_violations(page, axe)]
        page.set_viewport_size(size)
        if found:
            problems[name] = found
        if screenshot:
            shoot(page, name)

    ctx = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = ctx.new_page()
    page.goto("/login")
    page.get_by_label("Name").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    # --- the dashboard: per scene, posts owed by you, unread, the deadline; the count in the title
    expect(page).to_have_url(re.compile("/campaigns$"))
    row = {sid: page.locator(f"tr[data-scene='{sid}']") for sid in (ford, prologue, road)}
    expect(row[ford].locator("[data-owed]")).to_have_attribute("data-owed", "1")
    expect(row[ford].locator("[data-unread]")).to_have_attribute("data-unread", "1")
    expect(row[ford]).to_contain_text("round 1")
    expect(row[ford].locator("time[data-countdown]")).to_contain_text(re.compile(r"in 2[34] h"))  # the browser's zone
    expect(row[prologue]).to_contain_text("closed")
    expect(row[road].locator("[data-unread]")).to_have_attribute("data-unread", str(readable))
    assert page.title().startswith(f"({1 + 1 + readable}) ")  # owed + unread, before the name
    check(page, "dashboard")
    page.goto(f"/campaigns/{cid}")
    expect(page.locator(f"tr[data-scene='{ford}'] [data-owed]")).to_have_attribute("data-owed", "1")
    check(page, "campaign-dashboard", screenshot=False)

    # --- a portrait for Alis, shown next to her posts
    page.goto(f"/campaigns/{cid}/characters/{alis}")
    page.get_by_label(re.compile("Add a portrait")).set_input_files(
        {"name": "alis.png", "mimeType": "image/png", "buffer": _png()}
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("img.portrait")).to_be_visible()
    check(page, "sheet-portrait", screenshot=False)

    # --- the long scene: the newest page, the reply box right after the last post
    page.goto(f"/scenes/{road}")
    posts = page.locator("#story article.post")
    expect(posts).to_have_count(50)
    expect(posts.last).to_contain_text(f"Long post {LONG - 1}.")
    below = page.evaluate(
        """() => { const last = [...document.querySelectorAll('#story article.post')].pop().getBoundingClientRect();
                   const box = document.getElementById('compose').getBoundingClientRect();
                   return box.top >= last.bottom && box.left < last.right && box.right > last.left; }"""
    )
    assert below, "the reply box follows the last post in the same column"
    check(page, "long-scene")
    # earlier posts, without scripts' help: plain links
    page.get_by_role("link", name="Earlier posts").click()
    expect(posts).to_have_count(50)
    expect(page.locator("#compose")).to_have_count(0)
    alice_reads = [i for i in range(LONG) if i % 10 != 3]  # every tenth is private to the GM
    expect(posts.first).to_contain_text(f"Long post {alice_reads[-100]}.")
    expect(posts.last).to_contain_text(f"Long post {alice_reads[-51]}.")  # just before the newest 50
    expect(page.get_by_role("link", name="Later posts")).to_be_visible()
    check(page, "long-scene-earlier", screenshot=False)
    # on a phone the composer is one tap away
    page.goto(f"/scenes/{road}")
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("link", name="Write a post").click()
    expect(page.get_by_label("Text", exact=True)).to_be_in_viewport()
    page.set_viewport_size({"width": 1280, "height": 900})

    # --- live: a new post arrives alone (the story is not fetched again) and the turn box follows
    page.goto(f"/scenes/{road}")
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "/story" in r.url or "/scenes/" in r.url else None)
    title = page.title()
    page.evaluate("Object.defineProperty(document, 'hidden', {value: true, configurable: true})")  # another tab
    api("POST", f"/api/scenes/{road}/posts", "bob", json={"kind": "ooc", "text": "A new line arrives."})
    expect(posts.last).to_contain_text("A new line arrives.", timeout=15_000)
    expect(posts).to_have_count(51)
    expect(page).to_have_title(f"(1) {title}")  # the tab says a post arrived while it was hidden
    assert not [u for u in fetched if u.endswith(f"/scenes/{road}") or "/story" in u], fetched
    page.goto(f"/scenes/{ford}")
    expect(page.locator("#turn")).to_contain_text("Bobo")
    api("POST", f"/api/scenes/{ford}/posts", "bob", json={"kind": "ic", "character": bobo, "text": "Bobo wades in."})
    expect(page.locator("#story")).to_contain_text("Bobo wades in.", timeout=15_000)
    expect(page.locator("#turn strong")).to_have_text(["Alis"], timeout=15_000)  # only Alis still owes a post
    page.get_by_label("Speaking as").select_option(value=str(alis))
    page.get_by_label("Text", exact=True).fill("Alis follows Bobo.")
    page.get_by_role("button", name="Post", exact=True).click()
    mine = page.locator("#story article.post").last
    expect(mine).to_contain_text("Alis follows Bobo.")
    expect(mine.locator("img.avatar")).to_be_visible()
    check(page, "scene-turn", screenshot=False)

    # --- back on the dashboard: what was read is no longer unread; nothing owed at the ford now
    page.goto("/campaigns")
    expect(row[road].locator("[data-unread]")).to_have_attribute("data-unread", "0")
    expect(row[ford].locator("[data-owed]")).to_have_attribute("data-owed", "0")

    # --- the account page: e-mail, digests, password, read-only tokens
    page.get_by_role("link", name="alice").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    page.locator("#tk-name").fill("feed reader")
    page.get_by_role("button", name="Make a token").click()
    token = page.get_by_label("Token", exact=True).input_value()
    assert token.startswith("smt_")
    feed = httpx.get(f"{server.url}/api/scenes/{ford}/feed.atom?token={token}")
    assert feed.status_code == 200 and "Alis follows Bobo." in feed.text
    r = httpx.post(
        f"{server.url}/api/scenes/{ford}/posts",
        json={"kind": "ooc", "text": "x"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 403  # a feed token reads, nothing more
    page.get_by_label(re.compile("^E-mail address")).fill("not an address")
    page.get_by_role("button", name=re.compile("confirmation link")).click()
    expect(page.locator(".alert")).to_contain_text("not an e-mail address")
    check(page, "account")

    # --- the pages around: a page that does not exist, a scene one may not read, the builder's edit
    for url, name in (
        ("/no/such/page", "not-found"),
        ("/scenes/999999", "no-scene"),
        (f"/campaigns/{cid}/characters/{alis}/edit", "builder-edit"),
    ):
        page.goto(url)
        check(page, name, screenshot=False)

    # --- the join page, for someone new with the GM's link
    link = api("POST", f"/api/campaigns/{cid}/invites", "gm", json={"role": "observer"})["link"]
    api.user("carol")
    newcomer = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900}, bypass_csp=True)
    visitor = newcomer.new_page()
    visitor.goto("/login")
    visitor.get_by_label("Name").fill("carol")
    visitor.get_by_label("Password").fill(PASSWORD)
    visitor.get_by_role("button", name="Sign in").click()
    visitor.goto(link)
    expect(visitor.get_by_role("heading", level=1)).to_contain_text("Join")
    check(visitor, "join", screenshot=False)
    newcomer.close()

    ctx.close()
    assert not problems, problems
