import json

import pytest


def test_roll_json_contract(cli) -> None:
    result = cli("roll", "2d6+3", "--seed", "7", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"expression", "total", "dice", "seed"} <= data.keys()
    assert data["expression"] == "2d6+3" and data["seed"] == "7"
    assert [set(d) >= {"sides", "face"} for d in data["dice"]] == [True, True]
    assert data["total"] == sum(d["face"] for d in data["dice"]) + 3
    again = json.loads(cli("roll", "2d6+3", "--seed", "7", "--json").stdout)
    assert again == data


def test_roll_text(cli) -> None:
    result = cli("roll", "4d6kh3", "--seed", "42")
    assert result.exit_code == 0
    assert "4d6kh3[" in result.stdout and "seed 42" in result.stdout


def test_odds_json_contract(cli) -> None:
    data = json.loads(cli("odds", "4dF", "--json").stdout)
    assert data["expression"] == "4dF" and data["mean"] == 0
    assert {k: round(v * 81) for k, v in data["distribution"].items()} == {
        "-4": 1,
        "-3": 4,
        "-2": 10,
        "-1": 16,
        "0": 19,
        "1": 16,
        "2": 10,
        "3": 4,
        "4": 1,
    }
    assert data["at_least"]["-4"] == 1.0 and data["at_least"]["4"] == pytest.approx(1 / 81)
    data = json.loads(cli("odds", "2d6+3", "--json").stdout)
    assert data["mean"] == 10 and data["at_least"]["10"] == pytest.approx(21 / 36)


def test_odds_table(cli) -> None:
    out = cli("odds", "3d6").stdout
    assert "mean 10.5" in out and "at least" in out and "█" in out


@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_odds_plot(cli, tmp_path, suffix: str) -> None:
    path = tmp_path / f"chart.{suffix}"
    result = cli("odds", "3d6", "--plot", str(path))
    assert result.exit_code == 0, result.output
    data = path.read_bytes()
    assert data.startswith(b"<svg" if suffix == "svg" else b"\x89PNG")


def test_plot_needs_a_known_format(cli, tmp_path) -> None:
    result = cli("odds", "3d6", "--plot", str(tmp_path / "chart.gif"))
    assert result.exit_code == 2 and ".svg or .png" in result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("roll", "2d6+"), "found the end"),
        (("roll", "999999999d999999999"), "limit"),
        (("odds", "1000d1000"), "too long"),
        (("house-rules", "nosuch"), "no rule system called 'nosuch'"),
        (("replay", "/nonexistent/record.json"), "no such file"),
    ],
)
def test_errors_go_to_stderr_without_traceback(cli, args, words: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert words in result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_syntax_error_shows_caret(cli) -> None:
    err = cli("roll", "3d6 + x").stderr
    assert "3d6 + x" in err and "      ^" in err


def test_json_errors_are_json(cli) -> None:
    result = cli("roll", "2d", "--json")
    assert result.exit_code == 2
    data = json.loads(result.stderr)
    assert data["error"] == "dice-syntax" and data["position"] == 2


def test_replay_command(cli, tmp_path) -> None:
    record = cli("roll", "3d6!kh2", "--seed", "9", "--json").stdout
    path = tmp_path / "r.json"
    path.write_text(record)
    result = cli("replay", str(path), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["verified"] is True
    forged = json.loads(record)
    forged["total"] += 1
    path.write_text(json.dumps(forged))
    result = cli("replay", str(path))
    assert result.exit_code == 2 and "does not replay" in result.stderr


def test_replay_continues_from_counter(cli) -> None:
    first = json.loads(cli("roll", "d20", "--seed", "s", "--json").stdout)
    second = json.loads(cli("roll", "d20", "--seed", "s", "--counter", str(first["draws"]), "--json").stdout)
    assert second["counter"] == first["draws"]


def test_systems_json(cli) -> None:
    data = json.loads(cli("systems", "--json").stdout)
    assert set(data) == {"systems", "failed"}


def test_version_and_help(cli) -> None:
    assert "storymaster 0.1.0" in cli("--version").stdout
    assert "roll" in cli("--help").stdout


def test_usage_errors_are_reported_by_typer(cli) -> None:
    result = cli("roll")
    assert result.exit_code == 2 and "Missing argument" in result.output


def test_internal_errors_are_not_tracebacks(cli, monkeypatch) -> None:
    import storymaster.odds as odds_module

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(odds_module, "distribution", boom)  # the odds command imports it when it runs
    result = cli("odds", "3d6")
    assert result.exit_code == 70
    assert "internal error (RuntimeError: kaboom)" in result.stderr and "Traceback" not in result.output


def test_demo_runs(cli) -> None:
    result = cli("demo")
    assert result.exit_code == 0
    assert "$ storymaster roll 2d6+3 --seed 7" in result.stdout
    assert "error:" not in result.stdout and "failed to load" not in result.stdout


def test_a_plain_roll_loads_no_rule_system() -> None:
    """System sub-apps load when their name is used, so dice commands start fast."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from storymaster.cli.app import app\n"
        "assert CliRunner().invoke(app, ['roll', 'd6', '--seed', '1']).exit_code == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('storymaster.systems.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_system_commands_are_listed_and_load_on_use(cli) -> None:
    listing = cli("--help").stdout
    for name in ("blyss", "bum", "fuzzy", "kalyr", "philsys"):
        assert name in listing
    assert "B.U.M. (Basic" in listing  # the whole first line, not cut at "B.U.M."
    assert cli("kalyr", "odds", "--ability", "Good", "--difficulty", "Great", "--json").exit_code == 0


def test_a_broken_cli_plugin_says_why_and_breaks_nothing(cli, monkeypatch) -> None:
    from importlib.metadata import EntryPoint

    import storymaster.cli.app as app_module

    eps = dict(app_module._system_entry_points())
    eps["ghost"] = EntryPoint(name="ghost", value="no_such_module_anywhere:app", group=app_module.CLI_GROUP)
    monkeypatch.setattr(app_module, "_system_entry_points", lambda: eps)
    result = cli("ghost")
    assert result.exit_code == 2 and "the ghost commands failed to load" in result.output
    assert "Traceback" not in result.output
    assert cli("roll", "d6").exit_code == 0
