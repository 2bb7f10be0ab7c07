"""Mutants an audit of tools/mutation-equivalent.txt found NOT equivalent (notes/round-3/audit-fix.md): ``tactic ==
"..."`` -> ``is``. The entries argued the tactic is always pydantic's interned Literal, but a saved fight resumed with
``--tactic NAME=T`` goes through the CLI's _pairs (str.partition) and _retactic (a model_copy, no validation): the
tactic is then a new string object equal to the Literal, not the Literal itself. Each test hands the turn's public
functions the tactic exactly as the command line makes it. Expected values from the book (Part Five, Appendix A),
worked in the docstrings."""

from __future__ import annotations

import numpy as np

from storymaster.cli.systems.bum import _pairs
from storymaster.systems.bum.character import WeaponProfile
from storymaster.systems.bum.options import BumHouseRules
from storymaster.systems.bum.rounds import uses_missile
from storymaster.systems.bum.twins import READINESS, advance_v, uses_missile_v

HR = BumHouseRules()
MUSKET = WeaponProfile(name="Musket", attack=0, defence=None, ranged=True, hands=2, reload="muzzleloader")
BOW = WeaponProfile(name="Bow", attack=0, defence=None, ranged=True, hands=2, reload="bow")


def cli_tactic(t: str) -> str:
    """The tactic as ``--tactic A=T`` hands it to _retactic."""
    out = _pairs([f"A={t}"], "--tactic")["A"]
    assert out == t
    return out


def test_auto_with_an_unloaded_muzzleloader_fights_on_from_the_command_line() -> None:
    """rounds.py:538 and twins.py:113 (``tactic == "auto"`` -> ``is``): Appendix A, a muzzle-loader 'generally cannot
    be reloaded in combat' (12 actions, more than a crossbow's 3): on 'auto' a fighter whose musket is not ready
    fights on instead of reloading, at any distance (here 3 turns, which a ready musket could shoot at)."""
    auto = cli_tactic("auto")
    assert uses_missile(MUSKET, auto, "unready", None, 3, False, HR) is False
    ready = np.array([READINESS.index("unready"), READINESS.index("ready")])
    got = uses_missile_v(MUSKET, auto, ready, None, np.array([3, 3]), False, HR)
    assert got.tolist() == [False, True]


def test_melee_never_uses_the_bow_from_the_command_line() -> None:
    """twins.py:108 (``tactic == "melee"`` -> ``is``): the 'melee' tactic never turns to the missile weapon, even a
    ready bow 2 turns away."""
    ready = np.array([READINESS.index("ready")] * 2)
    got = uses_missile_v(BOW, cli_tactic("melee"), ready, None, np.array([2, 0]), False, HR)
    assert got.tolist() == [False, False]


def test_hold_stays_put_from_the_command_line() -> None:
    """twins.py:147 (``tactic == "hold"`` -> ``is``): Part Five, Movement with the 'hold' tactic: he stays put (2
    turns stay 2, and he cannot strike); in reach (0) he strikes."""
    after, strikes = advance_v(np.array([2, 0]), cli_tactic("hold"), HR)
    assert after.tolist() == [2, 0]
    assert strikes.tolist() == [False, True]
