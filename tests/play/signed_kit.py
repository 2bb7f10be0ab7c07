"""Signed (version 2) exports built in-process, with the table's own functions and no server.

The table's functions write the logs (campaign created, members, a character, a GM note; a closed
scene with dice, a check, an edit, a deletion, a private post; an open scene with blind and self
rolls), every entry is sealed with fresh salts as the store seals them, and ``web.export`` (the
exporter the server calls) writes and signs the export with a :class:`Signer` made here. The
verifier's tests then change one thing in a copy and say what must happen; the key that signed is
known, so a forger's re-signing can be reproduced exactly.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from storymaster.play import campaign as cc
from storymaster.play import scene as sc
from storymaster.play.log import Entry, seal
from storymaster.play.views import Reader
from storymaster.web.export import export_json, scene_doc
from storymaster.web.signing import Signer

GM, P1, P2, OBS = 1, 2, 3, 4
SEED_1 = "the signed tests' first seed"
SEED_2 = "the signed tests' second seed"
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
#: fixed private keys, so a failing test is reproducible (any 32 bytes are an Ed25519 private key)
SERVER_KEY = bytes(range(32))
FORGER_KEY = bytes(range(100, 132))


def salt() -> str:
    return secrets.token_hex(16)


@dataclass
class World:
    campaign: cc.CampaignState
    campaign_log: list[Entry]
    closed: sc.SceneState
    closed_log: list[Entry]
    open: sc.SceneState
    open_log: list[Entry]
    signer: Signer
    system: object

    def export(self, reader: Reader, *, campaign: bool = True, scenes=("closed", "open"), signer=None):
        signer = signer or self.signer
        docs = [
            scene_doc(getattr(self, name), self.campaign, reader, getattr(self, f"{name}_log"), signer)
            for name in scenes
        ]
        return export_json(
            self.campaign, reader, NOW, docs, signer, campaign_log=self.campaign_log if campaign else None
        )


def _append_campaign(c, log, drafts, at):
    new = seal(drafts, head_seq=c.head_seq, head_hash=c.head_hash, at=at, salt=salt)
    return cc.fold_campaign(c.id, new, c), log + new


def _append_scene(s, log, drafts, at):
    new = seal(drafts, head_seq=s.head_seq, head_hash=s.head_hash, at=at, salt=salt)
    return sc.fold_scene(s.id, new, s), log + new


def build(system) -> World:
    first = seal(
        cc.create_campaign(GM, "gm", name="The Signed Campaign", system=system, house_rules={"bonus": 1}),
        head_seq=0,
        head_hash=None,
        at="2026-03-01T10:00:00+00:00",
        salt=salt,
    )
    c, clog = cc.fold_campaign(1, first), list(first)
    for user, name, role in ((P1, "Ann", "player"), (P2, "Bo", "player"), (OBS, "Obi", "observer")):
        c, clog = _append_campaign(c, clog, cc.add_member(c, GM, user=user, name=name, role=role), "t1")
    c, clog = _append_campaign(
        c, clog, cc.create_character(c, P1, system=system, sheet={"name": "Arn", "skill": 1}), "t2"
    )
    arn = max(c.characters)
    c, clog = _append_campaign(c, clog, cc.write_note(c, GM, text="the GM's own note"), "t3")

    # scene 1: played and closed (its seed revealed, so every roll shows)
    drafts, _ = sc.open_scene(c, GM, scene_id=1, title="The Night", seed=SEED_1)
    opened = seal(drafts, head_seq=0, head_hash=None, at="2026-03-01T11:00:00+00:00", salt=salt)
    s, slog = sc.fold_scene(1, opened), list(opened)

    def post(s, slog, actor, at, **kw):
        return _append_scene(s, slog, sc.write_post(c, s, actor, now=NOW, seed=SEED_1, system=system, **kw), at)

    s, slog = post(
        s, slog, P1, "t11", kind="ic", character=arn, text="Arn draws.", rolls=[{"dice": "2d6+1", "label": "hit"}]
    )
    s, slog = post(s, slog, P2, "t12", kind="ooc", text="Bo waits.", rolls=[{"dice": "d20", "visibility": "blind"}])
    s, slog = post(s, slog, P1, "t13", kind="ooc", text="typo")
    typo = s.head_seq
    s, slog = _append_scene(s, slog, sc.edit_post(c, s, P1, typo, text="typo fixed"), "t14")
    s, slog = post(s, slog, P2, "t15", kind="ooc", text="never mind", rolls=[{"dice": "d4"}])
    gone = s.head_seq
    s, slog = _append_scene(s, slog, sc.delete_post(c, s, P2, gone), "t16")
    s, slog = post(s, slog, P1, "t17", kind="private", text="to the GM only", to=[GM], rolls=[{"dice": "d8"}])
    s, slog = post(
        s, slog, GM, "t18", kind="ic", text="The narrator speaks.", rolls=[{"check": {"type": "skill", "target": 5}}]
    )
    s, slog = _append_scene(s, slog, sc.close_scene(c, s, GM, seed=SEED_1)[0], "2026-03-01T12:30:00+00:00")
    closed, closed_log = s, slog

    # scene 2: still open (no seed revealed), with rolls only some readers see
    drafts, _ = sc.open_scene(c, GM, scene_id=2, title="The Day", seed=SEED_2)
    opened = seal(drafts, head_seq=0, head_hash=None, at="2026-03-02T11:00:00+00:00", salt=salt)
    s, slog = sc.fold_scene(2, opened), list(opened)

    def post2(s, slog, actor, at, **kw):
        return _append_scene(s, slog, sc.write_post(c, s, actor, now=NOW, seed=SEED_2, system=system, **kw), at)

    s, slog = post2(s, slog, P1, "t21", kind="ooc", text="in the open", rolls=[{"dice": "d6"}])
    s, slog = post2(s, slog, P2, "t22", kind="ooc", text="blind", rolls=[{"dice": "d20", "visibility": "blind"}])
    s, slog = post2(s, slog, P1, "t23", kind="ooc", text="mine", rolls=[{"dice": "d10", "visibility": "self"}])
    s, slog = post2(s, slog, GM, "t24", kind="note", text="a GM note", rolls=[{"dice": "d12"}])
    s, slog = post2(s, slog, P2, "t25", kind="ooc", text="to the GM", rolls=[{"dice": "d8", "visibility": "gm"}])
    s, slog = post2(s, slog, P2, "t26", kind="ooc", text="last", rolls=[{"dice": "d6"}])
    return World(c, clog, closed, closed_log, s, slog, Signer(SERVER_KEY), system)
