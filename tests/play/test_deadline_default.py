"""The table's deadline policy by rule system: Kalyr's chapter has the GM act for a tardy PC."""

from __future__ import annotations

import pytest

from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.errors import Invalid
from storymaster.play.log import seal
from storymaster.rules import registry


def _campaign(system):
    return cc.fold_campaign(
        1,
        seal(cc.create_campaign(1, "gm", name="C", system=system, house_rules={}), head_seq=0, head_hash=None, at="t"),
    )


def _opened(c, **kw):
    drafts, _ = sc.open_scene(c, 1, scene_id=3, title="S", seed="s", mode="turn", **kw)
    return sc.fold_scene(3, seal(drafts, head_seq=0, head_hash=None, at="t"))


def test_kalyr_scenes_default_to_the_gm_acting_for_the_tardy():
    """Kalyr ch. 3, Posts and Threads: "a deadline after which the GM will assume actions for the PC"."""
    kalyr = registry.get_system("kalyr")
    assert _opened(_campaign(kalyr)).on_deadline == "gm_acts"
    assert _opened(_campaign(kalyr), on_deadline="skip").on_deadline == "skip"  # the GM may still choose


@pytest.mark.parametrize("name", ["bum", "fuzzy"])
def test_other_systems_keep_skipping(name):
    assert _opened(_campaign(registry.get_system(name))).on_deadline == "skip"
    assert _opened(_campaign(registry.get_system(name)), on_deadline="gm_acts").on_deadline == "gm_acts"


def test_unknown_policy_refused_and_unknown_system_falls_back():
    c = _campaign(registry.get_system("kalyr"))
    with pytest.raises(Invalid, match="no deadline policy"):
        _opened(c, on_deadline="wait")
    assert sc.deadline_default("no-such-system") == "skip" and sc.deadline_default(None) == "skip"
