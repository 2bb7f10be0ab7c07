"""The demo worth exploring, walked in Debian's Chromium (Playwright): as the GM and as each player, in every system.

The table is seeded exactly as ``storymaster serve --demo`` seeds it, then served for real. The GM
finds, in each system's campaign, the two players and their characters, the open turn-based scene
mid-round (the narration, a player's post with a rules check and a hidden roll, the private post
to the GM), the fight in progress with its forecast, and plays its next round; the closed prologue's
export verifies on the verification page. The first player sees their private post and not the GM's
hidden roll; the second player, still to act, posts in character and the round moves on.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from argon2 import PasswordHasher
from pages.browser import CHROMIUM, CHROMIUM_ARGS, TableServer
from playwright.sync_api import Page, expect, sync_playwright

from storymaster.rules import get_system
from storymaster.store import Store, make_engine, migrate
from storymaster.web.demo import DEMO_USERS, demo_data, seed_demo

pytestmark = pytest.mark.slow
SYSTEMS = ("blyss", "philsys", "bum", "kalyr", "fuzzy")
PASSWORDS = {n: p for n, p, _ in DEMO_USERS}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('demo-browser') / 'table.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    seed_demo(Store(engine), datetime.now(UTC), PasswordHasher(time_cost=1, memory_cost=1024))
    engine.dispose()
    s = TableServer(url)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def log_in(browser, server, name: str) -> Page:
    ctx = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto("/login")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(PASSWORDS[name])
    page.get_by_role("button", name="Sign in").click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def open_campaign(page: Page, system: str) -> None:
    page.goto("/campaigns")
    page.get_by_role("link", name=f"Demo: {get_system(system).title}").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Demo: {get_system(system).title}")


def names(system: str) -> list[str]:
    data = demo_data(system)
    assert data is not None
    return [str(c["sheet"]["name"]) for c in data["characters"]]


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_gm_explores_the_demo(server, browser, system) -> None:
    gm = log_in(browser, server, "gm")
    first, second, npc = names(system)
    open_campaign(gm, system)
    members = gm.locator("#members")
    expect(members).to_contain_text("player2")
    for who in (first, second, npc):
        expect(gm.locator("main")).to_contain_text(who)

    # the closed prologue: its export verifies on the verification page
    gm.get_by_role("link", name="Prologue: the Letter").click()
    expect(gm.locator("#seed")).to_be_visible()
    export = gm.request.get(server.url + gm.locator("#export-json").get_attribute("href"))
    assert export.ok
    gm.goto("/verify")
    gm.get_by_label("Export (JSON)").fill(export.text())
    gm.get_by_role("button", name="Verify").click()
    expect(gm.locator("#verified")).to_contain_text("Verified")

    # the open scene: mid-round, every kind of post, hidden rolls the GM can read, a fight with its forecast
    open_campaign(gm, system)
    gm.get_by_role("link", name=demo_data(system)["scene"]).click()
    expect(gm.locator("#turn")).to_contain_text("Round 1")
    expect(gm.locator("#turn")).to_contain_text(second)  # still to act
    story = gm.locator("#story")
    expect(story).to_contain_text(f"{first} keeps to the wall")
    expect(story).to_contain_text("keeps the duke's letter hidden")  # the private post to the GM
    expect(story).to_contain_text("What is the smell in the tavern")  # out of character
    expect(story.locator("strong", has_text="Round 1")).to_be_visible()  # markup
    expect(story).to_contain_text("the duke's courier")  # the GM's own readers-only block
    expect(story).to_contain_text(re.compile(r"a hunch, for the GM's eyes 1d20: \d+"))
    expect(story).to_contain_text(re.compile(r"do the watchers by the door notice\? \(for the GM only\) 1d20: \d+"))
    fight = gm.locator("#fight")
    expect(fight).to_contain_text(npc)
    expect(gm.locator("#fight-controls")).to_contain_text(re.compile(r"side A wins \d+\.\d%"))  # the GM's forecast
    before = fight.inner_text()
    gm.locator("#fight-controls").get_by_role("button", name="Play the next round").click()
    expect(fight).not_to_have_text(before)
    gm.context.close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_players_explore_the_demo(server, browser, system) -> None:
    first, second, _ = names(system)
    p1 = log_in(browser, server, "player")
    open_campaign(p1, system)
    expect(p1.locator("main")).to_contain_text(first)
    p1.get_by_role("link", name=demo_data(system)["scene"]).click()
    story = p1.locator("#story")
    expect(story).to_contain_text("keeps the duke's letter hidden")  # their own private post
    expect(story).to_contain_text(re.compile(r"a hunch, for the GM's eyes 1d20: \d+"))  # their own hidden roll
    expect(story).to_contain_text("hidden from you")  # the GM's
    expect(story).to_contain_text("the duke's courier")  # the readers-only block written for this player
    expect(story).not_to_contain_text(re.compile(r"for the GM only\) 1d20: \d"))
    expect(p1.locator("#fight")).to_be_visible()
    expect(p1.locator("#fight-controls")).to_have_count(0)  # the fight is the GM's to run
    p1.context.close()

    p2 = log_in(browser, server, "player2")
    open_campaign(p2, system)
    # the second character came out of the prologue changed: its sheet's history says how (living rules)
    p2.get_by_role("link", name=second, exact=True).first.click()
    expect(p2.get_by_role("heading", level=1)).to_contain_text(second)
    expect(p2.locator("#history-h")).to_be_visible()
    reasons = [i["reason"] for i in demo_data(system).get("after_prologue", []) if i.get("character") == 1]
    for reason in reasons:
        expect(p2.locator(".history-list")).to_contain_text(reason)
    open_campaign(p2, system)
    # the dashboard tells the second player a post is owed in the open scene (the table's reading side)
    scene_link = p2.get_by_role("link", name=demo_data(system)["scene"]).first
    sid = scene_link.get_attribute("href").rstrip("/").split("/")[-1]
    owed = p2.locator(f"tr[data-scene='{sid}'] [data-owed]")
    expect(owed).to_have_attribute("data-owed", "1")
    scene_link.click()
    expect(p2.locator("#story")).not_to_contain_text("keeps the duke's letter hidden")
    expect(p2.locator("#story")).not_to_contain_text("the duke's courier")  # not a reader of that block
    expect(p2.locator("#story")).to_contain_text("how crowded the room is")  # the inline roll, for everyone
    form = p2.locator("form.composer")
    form.locator("input[name=kind][value=ic]").check()
    value = form.locator("#character option", has_text=second).first.get_attribute("value")
    form.get_by_label("Speaking as").select_option(value=value)
    form.get_by_label("Text", exact=True).fill(f"{second} orders a drink and listens.")
    form.get_by_role("button", name="Post", exact=True).click()
    expect(p2.locator("#story")).to_contain_text(f"{second} orders a drink")
    p2.reload()
    expect(p2.locator("#turn")).to_contain_text("Everyone has posted")
    open_campaign(p2, system)
    expect(owed).to_have_attribute("data-owed", "0")
    p2.context.close()
