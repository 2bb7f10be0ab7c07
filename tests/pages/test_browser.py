"""End to end in Debian's Chromium (headless, through Playwright): a whole play-by-post scene.

A GM creates a campaign and invites two players by link; both build characters in the
builder; a turn-based scene runs two rounds with rolls and a private post; neither player
sees the other's private post or the GM's blind roll; the GM closes the scene and the
export verifies on the verification page. Screenshots of the main pages at desktop and
phone widths go to artifacts/screenshots/ (and docs/screenshots/); axe-core checks each
main page for serious or critical accessibility violations.
"""

from __future__ import annotations

import re

import pytest
from pages.browser import CHROMIUM, CHROMIUM_ARGS, TableServer, axe_source, serious_violations, shoot
from playwright.sync_api import Page, expect, sync_playwright

pytestmark = pytest.mark.slow
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = TableServer(f"sqlite:///{tmp_path_factory.mktemp('browser') / 'table.sqlite3'}")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Checks:
    def __init__(self) -> None:
        self.axe = axe_source()
        self.problems: dict[str, list[str]] = {}

    def page(self, page: Page, name: str, *, screenshot: bool = True) -> None:
        found = serious_violations(page, self.axe)
        if found:
            self.problems[name] = found
        if screenshot:
            shoot(page, name)


def sign_up(page: Page, name: str) -> None:
    page.get_by_label("Name").first.fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def post(
    page: Page,
    *,
    kind: str = "ic",
    text: str,
    character: str | None = None,
    dice: str | None = None,
    visibility: str = "public",
    label: str = "",
    to: list[str] | None = None,
) -> None:
    form = page.locator("form.composer")
    form.locator(f"input[name=kind][value={kind}]").check()
    if character:
        value = form.locator("#character option", has_text=character).first.get_attribute("value")
        form.get_by_label("Speaking as").select_option(value=value)
    for name in to or []:
        form.get_by_label(re.compile(rf"{name} \(")).check()
    form.get_by_label("Text", exact=True).fill(text)
    if dice:
        form.locator("input[name=roll_kind][value=dice]").check()
        form.locator("#dice").fill(dice)
        form.get_by_label("Label").fill(label)
        form.get_by_label("Who sees the result").select_option(value=visibility)
        expect(page.locator("#odds svg")).to_be_visible(timeout=10_000)  # the exact odds, before posting
    form.get_by_role("button", name="Post", exact=True).click()
    expect(page.locator("#story")).to_contain_text(text.split(".")[0])


def test_a_scene_from_invitation_to_verified_export(server, browser):
    checks = Checks()
    base = server.url
    gm_ctx, alice_ctx, bob_ctx = (
        # bypass_csp: the test injects axe-core as an inline script, which the site's CSP (rightly) blocks
        browser.new_context(base_url=base, viewport={"width": 1280, "height": 900}, bypass_csp=True)
        for _ in range(3)
    )
    gm, alice, bob = gm_ctx.new_page(), alice_ctx.new_page(), bob_ctx.new_page()

    # --- the GM signs up and creates a campaign
    gm.goto("/")
    checks.page(gm, "home")
    gm.goto("/signup")
    checks.page(gm, "signup", screenshot=False)
    sign_up(gm, "gm")
    expect(gm).to_have_url(re.compile("/campaigns$"))
    gm.get_by_label("Name").fill("The Long Road")
    gm.get_by_label("Rule system").select_option(value="fuzzy")
    gm.get_by_role("button", name="Create campaign").click()
    expect(gm.get_by_role("heading", level=1)).to_have_text("The Long Road")
    gm.get_by_role("button", name="Make an invitation link").click()
    invite = gm.get_by_label("Invitation link").input_value()
    assert invite.startswith(base + "/join/")

    # --- two players follow the link, sign up on the way, join, and build characters
    for page, name, hero in ((alice, "alice", "Alis"), (bob, "bob", "Bobo")):
        page.goto(invite)
        expect(page).to_have_url(re.compile("/login"))
        if name == "alice":
            checks.page(page, "login")
        page.get_by_role("link", name="Create an account").click()
        sign_up(page, name)
        expect(page.get_by_role("heading", level=1)).to_contain_text("Join")
        page.get_by_role("button", name="Join as a player").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("The Long Road")
        page.get_by_role("link", name="Build a character").click()
        # a broken sheet: the problems appear as you type
        body = page.get_by_role("group", name="Required").get_by_label("Body")
        body.fill("0")
        expect(page.locator("#report")).to_contain_text("Required: Body", timeout=10_000)
        expect(page.locator("[data-field='f.required.body'] .field-problem")).to_be_visible()
        if name == "alice":
            checks.page(page, "builder")
        body.fill("4")
        page.get_by_label(re.compile("^Name")).first.fill(hero)
        expect(page.locator("#report")).to_contain_text("No creation problems", timeout=10_000)
        page.get_by_role("button", name="Create character").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(hero)
        if name == "alice":
            checks.page(page, "sheet")
            # printing gives a one-page sheet
            page.emulate_media(media="print")
            pdf = page.pdf(format="A4", print_background=False)
            page.emulate_media(media="screen")
            assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1

    # --- the GM opens a turn-based scene with both characters
    gm.reload()
    expect(gm.locator("#members")).to_contain_text("alice")
    expect(gm.locator("#members")).to_contain_text("bob")
    checks.page(gm, "campaign")
    gm.get_by_text("Open a scene").click()
    gm.get_by_label("Title").fill("At the gate")
    gm.get_by_label(re.compile("Turn-based")).check()
    gm.get_by_label(re.compile(r"Alis \(")).check()
    gm.get_by_label(re.compile(r"Bobo \(")).check()
    gm.get_by_label(re.compile("^Deadline per round")).fill("24")
    gm.get_by_role("button", name="Open scene").click()
    expect(gm.get_by_role("heading", level=1)).to_have_text("At the gate")
    scene_url = gm.url

    alice.goto(scene_url)
    bob.goto(scene_url)
    expect(bob.locator("#turn")).to_contain_text("opens round 1")

    for rnd in (1, 2):
        # the GM's narration opens the round, with a blind roll only the GM sees
        post(gm, text=f"Round {rnd}. The gate looms.", dice="1d1000", visibility="blind", label=f"ambush {rnd}")
        expect(gm.locator("#turn")).to_contain_text(f"Round {rnd}")
        expect(gm.locator("#turn")).to_contain_text("Alis")
        # Bob's open page shows Alice's post as it arrives (server-sent events)
        alice.reload()
        post(alice, text=f"Alis knocks, round {rnd}.", character="Alis", dice="1d20+2", label="knock")
        expect(bob.locator("#story")).to_contain_text(f"Alis knocks, round {rnd}", timeout=15_000)
        bob.reload()
        post(
            bob, text=f"Bobo keeps watch, round {rnd}.", character="Bobo", dice="2d6", visibility="self", label="watch"
        )
        if rnd == 1:
            alice.reload()
            post(alice, kind="private", text="psst: Alis pockets the key.", to=["gm"])
    gm.reload()
    expect(gm.locator("#turn")).to_contain_text("Everyone has posted")
    checks.page(gm, "scene-gm")
    bob.reload()
    checks.page(bob, "scene-player")

    # --- secrecy: the private post and the blind rolls stay hidden
    story_of = {p: p.locator("#story").inner_text() for p in (gm, alice, bob)}
    assert "psst" in story_of[gm] and "psst" in story_of[alice] and "psst" not in story_of[bob]
    gm_totals = re.findall(r"ambush \d 1d1000: (\d+)", story_of[gm])
    assert len(gm_totals) == 2
    for p in (alice, bob):
        assert "ambush 1 by gm: hidden from you" in story_of[p]
        assert not re.search(r"ambush \d 1d1000: \d", story_of[p])
    assert "watch 2d6: " in story_of[bob] and "watch by bob: hidden from you" in story_of[alice]
    # each die on demand
    bob.locator("#story details summary").first.click()
    expect(bob.locator("#story details[open]").first).to_contain_text("showed")

    # --- the GM's fight tracker: start a fight, play a round
    fight = gm.locator("#fight-controls")
    fight.get_by_role("group", name="Side A").get_by_label("Alis").check()
    fight.get_by_role("group", name="Side B").get_by_label("Bobo").check()
    fight.get_by_role("button", name="Start a fight").click()
    expect(gm.locator("#fight")).to_contain_text("Combatants")
    gm.locator("#fight-controls").get_by_role("button", name="Play the next round").click()
    expect(gm.locator("#fight")).to_contain_text("Round 1")
    gm.locator("#fight").scroll_into_view_if_needed()
    checks.page(gm, "fight-tracker")
    bob.reload()
    expect(bob.locator("#fight")).to_contain_text("Round 1")  # fights are public; the controls are the GM's
    expect(bob.locator("#fight-controls")).to_have_count(0)
    gm.locator("#fight-controls").get_by_role("button", name="End the fight").click()
    expect(gm.locator("#fight-controls")).to_contain_text("Start a fight")

    # --- the GM closes the scene (revealing the seed) and the export verifies
    gm.get_by_label("Yes, close it").check()
    gm.get_by_role("button", name="Close the scene and reveal its seed").click()
    expect(gm.locator("#seed")).to_be_visible()
    export = gm.request.get(base + gm.locator("#export-json").get_attribute("href"))
    assert export.ok
    text = export.text()
    gm.goto("/verify")
    gm.get_by_label("Export (JSON)").fill(text)
    gm.get_by_role("button", name="Verify").click()
    expect(gm.locator("#verified")).to_contain_text("Verified")
    checks.page(gm, "verify")
    # the player's own export, uploaded as a file, verifies too (with what is hidden from them)
    bob_export = bob.request.get(
        base + gm.locator("#export-json").get_attribute("href")
        if False
        else scene_url.replace("/scenes/", "/api/scenes/") + "/export.json"
    )
    bob.goto("/verify")
    bob.get_by_label("…or its file").set_input_files(
        {"name": "scene.json", "mimeType": "application/json", "buffer": bob_export.body()}
    )
    bob.get_by_role("button", name="Verify").click()
    expect(bob.locator("#verified")).to_contain_text("Verified")
    assert "psst" not in bob_export.text()

    for ctx in (gm_ctx, alice_ctx, bob_ctx):
        ctx.close()
    assert not checks.problems, checks.problems
