"""Shared fixtures: a seeded dice generator and a CLI runner."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from typer.testing import CliRunner

from storymaster.dice import DiceRng

settings.register_profile("storymaster", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("storymaster")


@pytest.fixture
def rng() -> DiceRng:
    """A generator with a fixed seed, so every test's dice are the same on every run."""
    return DiceRng("storymaster-tests", "test")


@pytest.fixture
def cli():
    """Run ``storymaster ARGS...`` in-process; returns the result (exit_code, stdout, stderr)."""
    from storymaster.cli.app import app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), input=input)

    return invoke
