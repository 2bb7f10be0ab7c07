"""Writing on the scene page (issue 18): markup rendered safely, refusals that keep the draft, readers and kinds,
closing with confirmation, move-on-now for the GM, an HTML 404 page."""

from __future__ import annotations

import re

from pages.pagekit import Table


def _post(p, table: Table, **data):
    data.setdefault("action", "post")
    return p.post(f"/scenes/{table.sid}/posts", data)


def test_markup_from_the_form_is_rendered_and_sanitised(table: Table) -> None:
    gm, alice = table.gm, table.alice
    assert _post(gm, table, kind="ic", text="The gate creaks.").status_code == 303  # opens round 1
    text = (
        'Alis *leans* in.\r\n\r\n"Who goes?" she asks. [ooc]back in 5[/ooc]\r\n\r\n'
        "<script>alert(1)</script> [site](https://example.org) [bad](javascript:alert(1))"
    )
    r = _post(alice, table, kind="ic", character=table.chars["Alis"], text=text)
    assert r.status_code == 303, r.text
    page = table.bob.get(f"/scenes/{table.sid}").text
    assert "<p>Alis <em>leans</em> in.</p>" in page
    assert re.search(r'<span class="say say-\d">"Who goes\?"</span> she asks', page)
    assert '<span class="ooc">(OOC: back in 5)</span>' in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<a href="https://example.org" rel="nofollow noopener">site</a>' in page
    assert 'href="javascript' not in page


def test_a_refused_post_keeps_the_draft_and_says_why_in_place(table: Table) -> None:
    gm, alice = table.gm, table.alice
    _post(gm, table, kind="ic", text="Round one.")
    draft = "Alis draws.\n\nShe swings [[2d6+ Sword]] hard."
    r = _post(alice, table, kind="ic", character=table.chars["Alis"], text=draft)
    assert r.status_code == 422
    assert 'id="post-error"' in r.text and "inline roll 1" in r.text and "line 3" in r.text
    assert "Alis draws.\n\nShe swings [[2d6+ Sword]] hard.</textarea>" in r.text.replace("&#34;", '"')
    # choosing readers on a post that is not private is refused, the readers kept ticked
    r = _post(alice, table, kind="ooc", text="psst", to=str(table.bob.id))
    assert r.status_code == 422 and "only private posts" in r.text
    assert re.search(rf'name="to" value="{table.bob.id}"[^>]* checked', r.text)
    r = _post(alice, table, kind="private", text="psst")
    assert r.status_code == 422 and "names its readers" in r.text and "psst</textarea>" in r.text


def test_the_gm_sees_move_on_now(table: Table) -> None:
    gm, alice = table.gm, table.alice
    _post(gm, table, kind="ic", text="Round one.")
    _post(alice, table, kind="ic", character=table.chars["Alis"], text="Alis waits.")
    r = _post(gm, table, kind="ic", text="Round two begins.")
    assert r.status_code == 409
    assert "still waiting for Bobo" in r.text and "force: true" not in r.text
    assert 'id="move-on"' in r.text and "Move on now (skip Bobo)" in r.text
    assert "Round two begins.</textarea>" in r.text
    r = _post(gm, table, kind="ic", text="Round two begins.", force="on")
    assert r.status_code == 303
    assert "Round two begins." in table.bob.get(f"/scenes/{table.sid}").text


def test_a_refused_edit_keeps_the_new_text(table: Table) -> None:
    alice = table.alice
    _post(table.gm, table, kind="ooc", text="hello")
    r = _post(alice, table, kind="ooc", text="I roll [[1d6]].")
    pid = int(r.headers["location"].rsplit("-", 1)[1])
    r = alice.post(f"/scenes/{table.sid}/posts/{pid}/edit", {"text": "I roll again [[1d8]]."})
    assert r.status_code == 422 and "never rolls" in r.text
    assert "I roll again [[1d8]].</textarea>" in r.text and "Not saved" in r.text


def test_closing_asks_for_confirmation(table: Table) -> None:
    gm = table.gm
    page = gm.get(f"/scenes/{table.sid}").text
    assert 'name="confirm" value="yes" required' in page
    r = gm.post(f"/scenes/{table.sid}/close")
    assert r.status_code == 422 and "confirm" in r.text
    assert 'id="seed"' not in gm.get(f"/scenes/{table.sid}").text
    assert gm.post(f"/scenes/{table.sid}/close", {"confirm": "yes"}).status_code == 303
    assert 'id="seed"' in gm.get(f"/scenes/{table.sid}").text


def test_unknown_urls_get_an_html_404_page(table: Table) -> None:
    r = table.alice.get("/no/such/page")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "there is no page at /no/such/page" in r.text and "<html" in r.text
    api = table.alice.get("/api/no-such-thing")
    assert api.status_code == 404 and api.headers["content-type"].startswith("application/problem+json")


def test_quote_a_post_into_the_composer(table: Table) -> None:
    alice, bob = table.alice, table.bob
    _post(table.gm, table, kind="ic", text="Round one.")
    r = _post(alice, table, kind="ooc", text="Meet at the well [[1d6]].\n\n[private=Bobo]bring the key[/private]")
    pid = int(r.headers["location"].rsplit("-", 1)[1])
    page = bob.get(f"/scenes/{table.sid}").text
    assert f'href="/scenes/{table.sid}?quote={pid}#compose"' in page
    quoted = bob.get(f"/scenes/{table.sid}?quote={pid}").text
    # the quote carries the words, not the rolls nor the readers-only block (not even to its reader)
    assert f"[quote=#{pid}]\nMeet at the well .\n[/quote]\n\n</textarea>" in quoted
    r = _post(bob, table, kind="ooc", text=f"[quote=#{pid}]\nMeet at the well.\n[/quote]\n\nOn my way.")
    assert r.status_code == 303
    shown = table.observer.get(f"/scenes/{table.sid}").text
    assert f'<p class="cite">alice, <a href="#post-{pid}" rel="nofollow noopener">post #{pid}</a>:</p>' in shown
    assert bob.get(f"/scenes/{table.sid}?quote=999999").status_code == 404


def test_preview_shows_the_post_as_it_will_look_without_rolling(table: Table) -> None:
    alice = table.alice
    _post(table.gm, table, kind="ic", text="Round one.")
    before = alice.get(f"/api/scenes/{table.sid}/log").text
    r = _post(
        alice,
        table,
        action="preview",
        kind="ic",
        character=table.chars["Alis"],
        text='Alis *ducks*. "Now!" [[2d6+3 Dodge]]\n\n[private=Bobo]psst[/private]',
    )
    assert r.status_code == 200
    preview = r.text.split('id="pv-h"')[1].split("</div>")[0]
    assert "<em>ducks</em>" in preview and 'class="say say-' in preview
    assert '<span class="iroll draft" title="rolled when you post">' in preview
    assert '<span class="roll-label">Dodge</span> <code>2d6+3</code> <b>?</b>' in preview
    assert '<span class="readers-only"><span class="cite">(for Bobo only)</span> psst</span>' in preview
    assert alice.get(f"/api/scenes/{table.sid}/log").text == before  # nothing was written or rolled
