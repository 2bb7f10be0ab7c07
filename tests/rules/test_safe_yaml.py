"""The one YAML loader for user text (issue 16): no aliases or anchors, bounded nesting and size, still YAML."""

from __future__ import annotations

import itertools
import time

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from storymaster import safe_yaml
from storymaster.errors import InputFileError
from storymaster.rules.files import parse_document

LEVELS = "abcdefghi"
BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{n}: &{n} [{','.join(['*' + p] * 9)}]" for p, n in itertools.pairwise(LEVELS)]
)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (BOMB, "anchors (&a) are not accepted"),
        ("a: 1\nb: *a", "aliases (*a) are not accepted"),
        ("[" * 100_000 + "]" * 100_000, "nested more than"),
        ('s: "' + "]" * 5000 + '"\nt: ' + "[" * 5000, "nested more than"),  # stray closers do not hide depth
        ("- " * 200 + "x", "nested more than"),
        ("[" + "1," * 60_000 + "1]", "more than 50000 values"),
    ],
)
def test_hostile_yaml_is_refused_quickly(text: str, says: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(yaml.YAMLError, match=says.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        safe_yaml.load(text)
    if "values" not in says:  # refused before PyYAML scans them: milliseconds (the bound allows a busy machine)
        assert time.perf_counter() - t0 < 1
    with pytest.raises(InputFileError):
        parse_document(text, source="upload.yaml")


def test_plain_yaml_python_tags_and_json_still_read_as_before() -> None:
    assert safe_yaml.load("name: Arn\nstats: {body: 3, mind: [1, 2]}\n") == {
        "name": "Arn",
        "stats": {"body": 3, "mind": [1, 2]},
    }
    assert safe_yaml.load('{"a": [1, 2, {"b": null}]}') == {"a": [1, 2, {"b": None}]}
    with pytest.raises(yaml.YAMLError):
        safe_yaml.load("x: !!python/object/apply:os.system ['true']")


# brackets inside strings count towards the nesting bound (a bound, not a parse), so texts here have none
text = st.text(st.characters(blacklist_characters="[]{}"), max_size=10)
json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=40,
)


@given(json_like)
def test_whatever_safe_dump_writes_loads_back_the_same(data) -> None:
    assert safe_yaml.load(yaml.safe_dump(data)) == data
