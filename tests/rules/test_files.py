import pytest
from pydantic import Field

from storymaster.errors import InputFileError
from storymaster.rules import Model, load_document, load_model


class Hero(Model):
    name: str
    strength: int = Field(ge=1, le=4)


def test_yaml_and_json(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text("name: Ana\nstrength: 3\n")
    (tmp_path / "b.json").write_text('{"name": "Bo", "strength": 2}')
    assert load_model(tmp_path / "a.yaml", Hero) == Hero(name="Ana", strength=3)
    assert load_model(tmp_path / "b.json", Hero).name == "Bo"


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("bad.yaml", "name: [unclosed\n", "bad.yaml:2:1: not valid YAML"),
        ("bad.json", '{"name": }', "bad.json:1:10: not valid JSON"),
        ("list.yaml", "- 1\n- 2\n", "expected a mapping"),
        ("shape.yaml", "name: Ana\nstrength: 9\nwings: 2\n", "strength: Input should be less than or equal to 4"),
    ],
)
def test_errors_say_where(tmp_path, name: str, text: str, words: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(InputFileError) as info:
        load_model(tmp_path / name, Hero)
    assert words in str(info.value)
    if name == "shape.yaml":
        assert "wings: Extra inputs are not permitted" in str(info.value)


def test_missing_and_folder(tmp_path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        load_document(tmp_path / "nope.yaml")
    with pytest.raises(InputFileError, match="is a folder"):
        load_document(tmp_path)


def test_not_utf8_and_too_big(tmp_path) -> None:
    (tmp_path / "x.yaml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputFileError, match="UTF-8"):
        load_document(tmp_path / "x.yaml")
    (tmp_path / "big.yaml").write_text("a" * 1_000_001)
    with pytest.raises(InputFileError, match="larger than"):
        load_document(tmp_path / "big.yaml")
