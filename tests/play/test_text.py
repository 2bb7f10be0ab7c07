"""A post's text (play/text.py) and its one renderer (present/markup.py): worked examples and hostile input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storymaster.play.errors import Invalid
from storymaster.play.text import fill_secrets, find_inline_rolls, mark_rolls, normalize, split_secrets
from storymaster.present.markup import plain_text, render_post


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("a\r\n\r\nb", "a\n\nb"),  # a browser's form
        ("a\r\rb", "a\n\nb"),  # old Mac
        ("a\u2029b", "a\n\nb"),  # a paragraph separator from a phone keyboard
        ("a\u2028b", "a\nb"),
        ("a\n\nb", "a\n\nb"),
    ],
)
def test_line_endings(sent: str, stored: str) -> None:
    assert normalize(sent) == stored


def test_the_three_forms_labels_and_visibility_in_written_order() -> None:
    text = "x [roll=Luck]d100[/roll] y [[2d6 + 3 Sword swing | GM]]\n  /roll 1d20+2 Notice\n"
    got = [(r.n, r.dice, r.label, r.visibility, r.line) for r in find_inline_rolls(text)]
    assert got == [
        (1, "d100", "Luck", "public", 1),
        (2, "2d6 + 3", "Sword swing", "gm", 1),
        (3, "1d20+2", "Notice", "public", 2),
    ]
    assert mark_rolls(text, find_inline_rolls(text)) == "x [[#1]] y [[#2]]\n[[#3]]\n"


@pytest.mark.parametrize(
    "text",
    [
        "`[[2d6]]`",
        "``a [[1d4]] `b` ``",
        "```\n/r 1d20\n[roll]d8[/roll]\n```",
        "~~~~\n[[d6]]\n~~~~",
        "```\nunclosed fence runs to the end\n[[d6]]",
        "/r",  # nothing after /r
        "a /r 1d6 in the middle of a line",
        "[[#1]] is a marker, not notation",
    ],
)
def test_what_is_not_a_roll(text: str) -> None:
    assert find_inline_rolls(text) == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ok [[1d6]]\n\n[[2d6+]]", ("inline roll 2", "line 3")),
        ("[[]]", ("no dice",)),
        ("[[1d6 | loud]]", ("visibility", "loud")),
        ("[[sword 1d6]]", ("inline roll 1",)),
        ("".join(f"[[d{n}]]" for n in range(2, 24)), ("at most 20",)),
    ],
)
def test_bad_notation_names_the_roll(text: str, words: tuple[str, ...]) -> None:
    with pytest.raises(Invalid) as e:
        find_inline_rolls(text)
    for w in words:
        assert w in e.value.message


def test_secrets_split_and_fill_back() -> None:
    text = "a [private=Ann, Kestrel]one[/private] b\n[PRIVATE=Bo]two\n\nparas[/private]"
    public, blocks = split_secrets(text)
    assert public == "a [private=Ann, Kestrel][/private] b\n[private=Bo][/private]"
    assert [(b.readers, b.text) for b in blocks] == [(("Ann", "Kestrel"), "one"), (("Bo",), "two\n\nparas")]
    assert fill_secrets(public, ["one", None]) == "a [private=Ann, Kestrel]one[/private] b\n[private=Bo][/private]"
    assert fill_secrets(public, ["one", "two\n\nparas"]) == text.replace("PRIVATE", "private")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[private=Ann]never closed", "not closed"),
        ("[private=Ann]a[private=Bo]b[/private][/private]", "nested"),
        ("[private=Ann] [/private]", "empty"),
        ("[private=]who?[/private]", "names its readers"),
    ],
)
def test_secrets_that_would_leak_are_refused(text: str, says: str) -> None:
    with pytest.raises(Invalid) as e:
        split_secrets(text)
    assert says in e.value.message


@pytest.mark.parametrize(
    "evil",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        '<a href="javascript:alert(1)">x</a>',
        "![x](http://tracker.example/pixel.png)",
        "[ooc]<b onclick=alert(1)>x</b>[/ooc]",
        "[quote=<script>alert(1)</script>]x[/quote]",
        '[private=" onmouseover="alert(1)][/private]',
        "\ue000R1\ue001 \ue000O\ue001",  # the renderer's own placeholders, typed
    ],
)
def test_the_renderer_lets_no_markup_through(evil: str) -> None:
    html = str(render_post(evil, rolls=[{"inline": 1, "expression": "<b>", "total": "<i>", "records": []}]))
    for tag, attrs in _elements(html):
        assert tag not in ("script", "img", "iframe", "style", "b", "i"), (evil, html)
        for name, value in attrs:
            assert not name.startswith("on"), (evil, html)
            if name == "href":
                assert value.startswith(("https:", "http:", "mailto:", "#")), (evil, html)
            if name == "rel":
                assert value == "nofollow noopener"


def _elements(html: str) -> list[tuple[str, list[tuple[str, str]]]]:
    from html.parser import HTMLParser

    found: list[tuple[str, list[tuple[str, str]]]] = []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, [(k, v or "") for k, v in attrs]))

    P().feed(html)
    return found


def test_rendering_the_conventions() -> None:
    html = str(
        render_post(
            'Ann: "Run!" [[#1]]\n\n[quote=#4]\nthe old words\n[/quote]\n\n# Title',
            rolls=[{"inline": 1, "label": "Flee", "expression": "2d6", "total": 8, "records": [{"detail": "[5, 3]"}]}],
            post=9,
            character=10,
            quotes={4: "Kestrel"},
        )
    )
    assert '<span class="say say-2">"Run!"</span>' in html  # character 10: colour 10 mod 8
    assert 'href="#roll-9-1" title="[5, 3]"' in html and "<strong>8</strong>" in html
    assert '<blockquote class="quote"><p class="cite">Kestrel, <a href="#post-4"' in html
    assert "<h4>Title</h4>" in html
    assert plain_text("Go [[#1]] now", rolls=[{"inline": 1, "label": "", "expression": "d4", "total": 3}]) == (
        "Go [d4 = 3] now"
    )


@given(st.text(max_size=300))
def test_any_text_renders_or_refuses_cleanly(text: str) -> None:
    """Every text: the split, the rolls and the renderer either work or raise the table's own error."""
    try:
        find_inline_rolls(normalize(text))
        public, _ = split_secrets(normalize(text))
    except Invalid:
        return
    html = str(render_post(public))
    assert all(tag != "script" and not any(k.startswith("on") for k, _ in attrs) for tag, attrs in _elements(html))
