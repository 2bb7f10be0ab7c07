import json
from pathlib import Path

import pytest

from storymaster.cli.forecast import emit_forecast, forecast_progress, split_sides
from storymaster.errors import InputFileError
from storymaster.forecast import CombatantForecast, Forecast


def test_sides_grammar() -> None:
    a, b, x, y = (Path(n) for n in "abxy")
    assert split_sides([a, b], None) == [[a], [b]]
    assert split_sides([a, b], [x, y]) == [[a, b], [x, y]]
    with pytest.raises(InputFileError, match="got 3"):
        split_sides([a, b, x], None)
    with pytest.raises(InputFileError, match="before --vs"):
        split_sides([], [x])


FORECAST = Forecast(
    "toy",
    "exact",
    (("Ann",), ("Bo", "Cy")),
    (0.625, 0.25),
    0.125,
    {1: 0.5, 2: 0.5},
    (CombatantForecast("Ann", 0, {"unhurt": 0.5, "down": 0.5}),),
    1e-13,
    {"A": "cautious"},
)


def test_emit_json(capsys) -> None:
    emit_forecast(FORECAST, True)
    data = json.loads(capsys.readouterr().out)
    assert data["p_win"] == {"A": 0.625, "B": 0.25} and data["p_draw"] == 0.125
    assert data["sides"] == {"A": ["Ann"], "B": ["Bo", "Cy"]} and data["rounds"] == {"1": 0.5, "2": 0.5}
    assert data["mean_rounds"] == 1.5 and data["tactics"] == {"A": "cautious"}


def test_emit_text_and_plot(capsys, tmp_path) -> None:
    emit_forecast(FORECAST, False, tmp_path / "f.svg")
    out = capsys.readouterr().out
    assert "62.50%" in out and "exact (Markov chain" in out and "Ann (A)" in out
    assert (tmp_path / "f.svg").read_text().startswith("<svg")


def test_progress_stays_quiet_for_quick_work(capsys) -> None:
    with forecast_progress(after=10) as update:
        update(1, 2)
        update(2, 2)
    assert capsys.readouterr().err == ""


def test_long_tails_are_folded(capsys) -> None:
    rounds = {1: 0.9, 2: 0.0995, **dict.fromkeys(range(3, 101), 0.0005 / 98)}
    f = Forecast("toy", "exact", (("A",), ("B",)), (0.5, 0.5), 0.0, rounds, (), 0.0)
    emit_forecast(f, False)
    out = capsys.readouterr().out
    assert ">2" in out and "\n    50 " not in out
