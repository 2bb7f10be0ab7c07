"""A scene (a thread): posts in any order, or turn by turn; rolls on a committed seed; a closing reveal.

The Kalyr chapter's play-by-post rules: a thread is a scene; while talking,
posts come in any order; in action the thread turns turn-based, players answer
the GM's post and the GM answers once everyone has posted or the deadline has
passed, acting for (or skipping) the tardy. Mechanics can go to the GM only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..rules import RuleSystem
from .campaign import GM, OBSERVER, CampaignState
from .chain import sha256_hex
from .errors import Conflict, Forbidden, Invalid, NotFound
from .log import ALL, Draft, Entry
from .log import GM as GM_ONLY
from .rolling import roll_requests, scene_stream
from .text import SecretBlock, find_inline_rolls, mark_rolls, normalize, roll_marks, split_secrets

__all__ = [
    "FREE",
    "POST_KINDS",
    "TURN",
    "Post",
    "SceneState",
    "close_scene",
    "delete_post",
    "edit_post",
    "fold_scene",
    "open_scene",
    "parse_time",
    "update_scene",
    "write_post",
]

FREE, TURN = "free", "turn"
MODES = (FREE, TURN)
IC, OOC, PRIVATE, NOTE = "ic", "ooc", "private", "note"
POST_KINDS = (IC, OOC, PRIVATE, NOTE)
#: entries the table writes into the story itself: a fight's round, a character's rest or healing
FIGHT, TABLE = "fight", "table"
TABLE_KINDS = (FIGHT, TABLE)
ON_DEADLINE = ("skip", "gm_acts")
MAX_TEXT = 20_000


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


@dataclass(slots=True)
class Post:
    seq: int
    at: str
    author: int
    kind: str
    audience: Any
    text: str
    character: int | None = None
    character_name: str = ""
    to: tuple[int, ...] = ()
    rolls: list[Mapping[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    round: int = 0
    deleted_at: str | None = None
    deleted_by: int | None = None
    #: the log entries (``post.secret``) holding this version's readers-only blocks, in order
    secrets: list[int] = field(default_factory=list)


@dataclass(slots=True)
class SceneState:
    """The scene as its log says it is now (built by :func:`fold_scene`; treat as read-only)."""

    id: int
    campaign: int = 0
    title: str = ""
    mode: str = FREE
    seed_sha256: str = ""
    stream: str = ""
    opened_at: str = ""
    closed_at: str | None = None
    seed: str | None = None  # only once revealed by the closing entry
    cast: list[int] = field(default_factory=list)
    turn_seconds: int | None = None
    on_deadline: str = "skip"
    round: int = 0
    round_started: str | None = None
    posted: set[int] = field(default_factory=set)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    posts: dict[int, Post] = field(default_factory=dict)
    #: readers-only blocks by log entry: {"text", "to", "audience", "rolls", "post"}
    secrets: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: what the story shows between posts, by log entry: skipped turns (oldest first)
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: how many posts each audience reads ("all", "gm", or a tuple of user ids): a reader's count without a walk
    audiences: dict[Any, int] = field(default_factory=dict)
    next_counter: int = 0
    combat: dict[str, Any] | None = None
    head_seq: int = 0
    head_hash: str | None = None

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def post(self, seq: int) -> Post:
        p = self.posts.get(seq)
        if p is None:
            raise NotFound(f"scene {self.id} has no post {seq}")
        return p

    def owed(self) -> list[int]:
        """Characters who still owe a post this round (turn-based scenes, after the GM's first post)."""
        if self.mode != TURN or self.round == 0 or self.closed:
            return []
        return [c for c in self.turn_order() if c not in self.posted]

    def turn_order(self) -> list[int]:
        """Initiative order when a fight is attached and gives one, else the cast in the order it was set."""
        if self.combat and self.combat.get("order"):
            order = [c for c in self.combat["order"] if c in self.cast]
            return order + [c for c in self.cast if c not in order]
        return list(self.cast)

    def deadline(self) -> datetime | None:
        if self.mode != TURN or not self.turn_seconds or not self.round_started:
            return None
        return parse_time(self.round_started) + timedelta(seconds=self.turn_seconds)


def apply_scene(s: SceneState, e: Entry) -> None:
    """Fold one entry into ``s`` (the fold owns its accumulator)."""
    b, k = e.body, e.kind
    if k == "scene.opened":
        s.campaign, s.title, s.mode = b["campaign"], b["title"], b["mode"]
        s.seed_sha256, s.stream, s.opened_at = b["seed_sha256"], b["stream"], e.at
        s.cast, s.turn_seconds, s.on_deadline = (
            list(b.get("cast", [])),
            b.get("turn_seconds"),
            b.get("on_deadline", "skip"),
        )
    elif k == "scene.updated":
        if "mode" in b and b["mode"] != s.mode:
            s.mode, s.round, s.round_started, s.posted = b["mode"], 0, None, set()
        for key in ("title", "cast", "turn_seconds", "on_deadline"):
            if key in b:
                setattr(s, key, list(b[key]) if key == "cast" else b[key])
    elif k == "post.created":
        if e.actor is None:
            raise Invalid(f"log entry {e.seq}: a post has no author")
        p = Post(
            e.seq,
            e.at,
            e.actor,
            b["kind"],
            e.audience,
            b["text"],
            b.get("character"),
            b.get("character_name", ""),
            tuple(b.get("to", ())),
            list(e.rolls),
            round=s.round,
            secrets=list(b.get("secrets", ())),
        )
        for ref in p.secrets:
            if ref in s.secrets:
                s.secrets[ref]["post"] = e.seq
        s.posts[e.seq] = p
        aud: Any = tuple(e.audience) if isinstance(e.audience, list) else e.audience
        s.audiences[aud] = s.audiences.get(aud, 0) + 1
        if s.mode == TURN and p.kind == IC:
            if b.get("advance"):
                s.round += 1
                s.round_started, s.posted, s.skipped = e.at, set(), []
                p.round = s.round
            elif p.character is not None:
                s.posted.add(p.character)
    elif k == "post.edited":
        p = s.posts[b["post"]]
        last = p.history[-1]["edited_at"] if p.history else p.at
        p.history.append({"at": last, "text": p.text, "edited_at": e.at, "secrets": list(p.secrets)})
        p.text, p.secrets = b["text"], list(b.get("secrets", ()))
        for ref in p.secrets:
            if ref in s.secrets:
                s.secrets[ref]["post"] = p.seq
    elif k == "post.secret":
        s.secrets[e.seq] = {"text": b["text"], "to": list(b["to"]), "audience": e.audience, "rolls": list(e.rolls)}
    elif k == "post.deleted":
        p = s.posts[b["post"]]
        p.deleted_at, p.deleted_by = e.at, e.actor
    elif k == "turn.skipped":
        s.posted.update(b["characters"])
        s.skipped.append({"round": s.round, "characters": list(b["characters"]), "reason": b.get("reason", "")})
        s.events[e.seq] = {
            "id": e.seq,
            "at": e.at,
            "kind": "turn.skipped",
            "round": s.round,
            "characters": list(b["characters"]),
            "reason": b.get("reason", ""),
            "audience": e.audience,
        }
    elif k == "combat.started" or k == "combat.stepped":
        s.combat = {**b, "round": b.get("round", 0)}
        if k == "combat.stepped" and b.get("story") and e.actor is not None:
            s.posts[e.seq] = Post(
                e.seq, e.at, e.actor, FIGHT, e.audience, b["story"], rolls=list(e.rolls), round=s.round
            )
    elif k == "character.acted" and e.actor is not None:
        s.posts[e.seq] = Post(
            e.seq,
            e.at,
            e.actor,
            TABLE,
            e.audience,
            b.get("text", ""),
            b.get("character"),
            b.get("character_name", ""),
            rolls=list(e.rolls),
            round=s.round,
        )
    elif k == "combat.ended":
        s.combat = None
    elif k == "scene.closed":
        s.closed_at, s.seed = e.at, b["seed"]
    for r in e.rolls:
        s.next_counter = max(s.next_counter, r["counter"][1])
    s.head_seq, s.head_hash = e.seq, e.hash


def fold_scene(scene_id: int, entries: Iterable[Entry], state: SceneState | None = None) -> SceneState:
    state = state or SceneState(scene_id)
    for e in entries:
        apply_scene(state, e)
    return state


# --- commands -------------------------------------------------------------------------------


def _require_gm(c: CampaignState, actor: int) -> None:
    if c.role_of(actor) != GM:
        raise Forbidden("only the campaign's GM may do this")


def _check_settings(c: CampaignState, mode: Any, cast: Any, turn_seconds: Any, on_deadline: Any) -> None:
    if mode is not None and mode not in MODES:
        raise Invalid(f"no scene mode {mode!r}", hint="modes: free, turn")
    if cast is not None:
        if not isinstance(cast, list) or not all(isinstance(x, int) for x in cast):
            raise Invalid("'cast' is a list of character ids")
        for ch in cast:
            c.character(ch)
        if len(set(cast)) != len(cast):
            raise Invalid("a character is in the cast twice")
    if turn_seconds is not None and (not isinstance(turn_seconds, int) or not 60 <= turn_seconds <= 60 * 60 * 24 * 60):
        raise Invalid("'turn_seconds' is a whole number of seconds from 60 to 60 days")
    if on_deadline is not None and on_deadline not in ON_DEADLINE:
        raise Invalid(
            f"no deadline policy {on_deadline!r}",
            hint="skip (the tardy lose the round) or gm_acts (the GM posts for them)",
        )


def deadline_default(system: RuleSystem | str | None) -> str:
    """What happens when a round's deadline passes, unless the GM says otherwise: the rule system's
    ``on_deadline_default`` if it has one (Kalyr, ch. 3 Posts and Threads: "the GM will assume
    actions for the PC" -> ``gm_acts``), else ``skip``."""
    if isinstance(system, str):
        from ..rules import registry

        try:
            system = registry.get_system(system) if system else None
        except Exception:  # an unknown or unloadable system: the table's own default
            system = None
    value = getattr(system, "on_deadline_default", "skip")
    return value if value in ON_DEADLINE else "skip"


def open_scene(
    c: CampaignState,
    actor: int,
    *,
    scene_id: int,
    title: str,
    seed: str,
    mode: str = FREE,
    cast: Sequence[int] = (),
    turn_seconds: int | None = None,
    on_deadline: str | None = None,
) -> tuple[list[Draft], list[Draft]]:
    """Drafts for the scene's own log and for the campaign's index. The seed's hash is the commitment.

    ``on_deadline`` None: the campaign's rule system decides (:func:`deadline_default`)."""
    _require_gm(c, actor)
    if on_deadline is None:
        on_deadline = deadline_default(c.system)
    _check_settings(c, mode, list(cast), turn_seconds, on_deadline)
    body = {
        "campaign": c.id,
        "title": title,
        "mode": mode,
        "cast": list(cast),
        "turn_seconds": turn_seconds,
        "on_deadline": on_deadline,
        "seed_sha256": sha256_hex(seed),
        "stream": scene_stream(scene_id),
        "rng_version": 1,
    }
    return [Draft("scene.opened", actor, body)], [
        Draft("scene.opened", actor, {"scene": scene_id, "title": title, "mode": mode})
    ]


def update_scene(c: CampaignState, s: SceneState, actor: int, changes: Mapping[str, Any]) -> list[Draft]:
    _require_gm(c, actor)
    _open(s)
    allowed = {"title", "mode", "cast", "turn_seconds", "on_deadline"}
    unknown = set(changes) - allowed
    if unknown:
        raise Invalid(f"cannot change {', '.join(sorted(unknown))}", hint=f"changeable: {', '.join(sorted(allowed))}")
    _check_settings(
        c, changes.get("mode"), changes.get("cast"), changes.get("turn_seconds"), changes.get("on_deadline")
    )
    if not changes:
        raise Invalid("nothing to change")
    return [Draft("scene.updated", actor, dict(changes))]


def _open(s: SceneState) -> None:
    if s.closed:
        raise Conflict(f"scene {s.id} is closed", hint="the log of a closed scene only grows by nothing")


def write_post(
    c: CampaignState,
    s: SceneState,
    actor: int,
    *,
    kind: str,
    text: str,
    now: datetime,
    seed: str,
    system: RuleSystem,
    character: int | None = None,
    to: Sequence[int] = (),
    rolls: Sequence[Any] = (),
    force: bool = False,
) -> list[Draft]:
    """A post (with its rolls rolled now); in turn-based scenes, the turn rules decide who may post.

    The text's inline rolls (:mod:`.text`) are rolled with the attached ``rolls``, on the same
    stream, in the order they are written, and stored as markers; each readers-only block goes
    in its own ``post.secret`` entry (before the post's) whose audience is its readers and the author.
    """
    _open(s)
    role = c.role_of(actor)
    if role is None or role == OBSERVER:
        raise Forbidden("observers read the scene; only players and GMs post")
    if kind not in POST_KINDS:
        raise Invalid(f"no post kind {kind!r}", hint="kinds: ic (in character), ooc, private, note (GM only)")
    if not isinstance(text, str):
        raise Invalid("a post's text is text")
    text = normalize(text)
    if not text.strip() and not rolls:
        raise Invalid("a post needs some text (or at least one roll)")
    if len(text) > MAX_TEXT:
        raise Invalid(f"a post is at most {MAX_TEXT} characters")
    inline = find_inline_rolls(text)
    marked = mark_rolls(text, inline)
    public, blocks = split_secrets(marked)
    body: dict[str, Any] = {"kind": kind, "text": public}
    audience: Any = ALL
    drafts: list[Draft] = []
    if kind == IC:
        if character is not None:
            ch = c.character(character)
            if ch.retired:
                raise Conflict(f"{ch.name} is retired")
            if ch.owner != actor and role != GM:
                raise Forbidden(f"{ch.name} is not your character")
            body.update(character=ch.id, character_name=ch.name)
        elif role != GM:
            raise Invalid(
                "an in-character post names the character who speaks ('character': id)",
                hint="choose the character under 'Speaking as'; only the GM narrates without one",
            )
        if s.mode == TURN:
            drafts += _turn_rules(c, s, actor, role, character, now, force)
            if role == GM and character is None:
                body["advance"] = True
    elif character is not None:
        raise Invalid("only in-character posts name a character")
    if kind == PRIVATE:
        if not isinstance(to, (list, tuple)) or not to or not all(isinstance(u, int) for u in to):
            raise Invalid(
                "a private post names its readers: 'to': [user ids] (the GM's id for mechanics to the GM)",
                hint="choose at least one reader, or make the post public",
            )
        for u in to:
            if c.role_of(u) is None:
                raise Invalid(f"user {u} is not a member of this campaign")
        body["to"] = sorted(set(to))
        audience = sorted(set(to) | {actor})
    elif to:
        raise Invalid(
            f"a {KIND_NAMES.get(kind, kind)} post has no chosen readers: only private posts do",
            hint="send kind 'private' to keep it to those readers, or leave the readers out to post it to everyone",
        )
    if kind == NOTE:
        if role != GM:
            raise Forbidden("notes are the GM's")
        audience = GM_ONLY
    from .living import penaliser

    secret_readers = [_block_readers(c, actor, b, audience) for b in blocks]
    requests = [*(r.request() for r in inline), *rolls]
    items, _ = roll_requests(
        requests,
        by=actor,
        seed=seed,
        scene_id=s.id,
        counter=s.next_counter,
        system=system,
        house_rules=c.house_rules,
        penalise=penaliser(c, system, actor),
    )
    in_block = _rolls_in_blocks(marked, blocks, items)
    first = s.head_seq + len(drafts) + 1
    for i, (b, readers) in enumerate(zip(blocks, secret_readers, strict=True)):
        drafts.append(
            Draft(
                "post.secret",
                actor,
                {"text": b.text, "to": readers},
                sorted(set(readers) | {actor}),
                tuple(it for it, where in zip(items, in_block, strict=True) if where == i),
            )
        )
    if blocks:
        body["secrets"] = list(range(first, first + len(blocks)))
    mine = tuple(it for it, where in zip(items, in_block, strict=True) if where is None)
    return [*drafts, Draft("post.created", actor, body, audience, mine)]


KIND_NAMES = {IC: "in-character", OOC: "out-of-character", NOTE: "GM note"}


def _block_readers(c: CampaignState, actor: int, block: SecretBlock, audience: Any) -> list[int]:
    """The user ids a readers-only block names (members by name, or characters by name: their players)."""
    by_name = {m.name.casefold(): m.user for m in c.members.values()}
    by_char = {ch.name.casefold(): ch.owner for ch in c.characters.values() if not ch.retired}
    out = set()
    for name in block.readers:
        key = name.casefold()
        user = by_name.get(key, by_char.get(key))
        if user is None or c.role_of(user) is None:
            raise Invalid(
                f"the readers-only block names {name!r}, who is not in this campaign",
                hint="name members or their characters: [private=Ann, Kestrel]",
            )
        if audience == GM_ONLY or (isinstance(audience, list) and user not in audience):
            raise Invalid(
                f"{name} does not read this post, so cannot read a block inside it",
                hint="add them to the post's readers, or leave them out of the block",
            )
        out.add(user)
    out.discard(actor)
    if not out:
        raise Invalid("a readers-only block names someone besides you")
    return sorted(out)


def _rolls_in_blocks(marked: str, blocks: Sequence[SecretBlock], items: Sequence[Any]) -> list[int | None]:
    """For each rolled item: the readers-only block its marker stands in, or None (the post itself)."""
    where: dict[int, int] = {}
    for i, b in enumerate(blocks):
        for n in roll_marks(b.text):
            where[n] = i
    return [where.get(it["inline"]) if "inline" in it else None for it in items]


def _turn_rules(
    c: CampaignState, s: SceneState, actor: int, role: str, character: int | None, now: datetime, force: bool
) -> list[Draft]:
    deadline = s.deadline()
    late = deadline is not None and now >= deadline
    if role != GM:
        if s.round == 0:
            raise Conflict("this scene is turn-based: wait for the GM's post to open the round")
        if character not in s.cast:
            raise Conflict("this character is not in the scene's cast", hint="ask the GM to add them")
        if character in s.posted:
            raise Conflict("this character has already acted this round: wait for the GM's next post")
        if late:
            raise Conflict("the deadline for this round has passed: the GM acts for the tardy")
        return []
    if character is not None:  # the GM acts for a character
        if character in s.cast and character in s.posted:
            raise Conflict("this character has already acted this round")
        return []
    owed = s.owed()
    if not owed:
        return []
    if (late and s.on_deadline == "skip") or force:
        reason = "deadline passed" if late else "the GM moved on"
        return [Draft("turn.skipped", actor, {"characters": owed, "reason": reason})]
    names = ", ".join(c.characters[ch].name for ch in owed)
    if late:
        raise StillWaiting(
            f"the deadline has passed and the GM acts for the tardy: post as {names} first",
            hint="or send force: true to skip them",
            owed=names,
        )
    raise StillWaiting(
        f"still waiting for {names} this round",
        hint="wait for the deadline, or send force: true to skip them",
        owed=names,
    )


class StillWaiting(Conflict):
    """The GM would open the next round while characters still owe a post (the page offers "move on now")."""

    code = "still-waiting"

    def __init__(self, message: str, *, hint: str, owed: str) -> None:
        super().__init__(message, hint=hint)
        self.owed = owed


def edit_post(c: CampaignState, s: SceneState, actor: int, seq: int, *, text: str) -> list[Draft]:
    """A new text for a post. Edits never roll: the rolls stay as they were; new dice notation is refused."""
    _open(s)
    p = s.post(seq)
    if p.kind in TABLE_KINDS:
        raise Conflict("the table wrote this entry from the rules: it is not edited")
    if p.author != actor:
        raise Forbidden("only the author edits a post")
    if p.deleted_at:
        raise Conflict("the post was deleted")
    if not isinstance(text, str):
        raise Invalid("a post's text is text")
    text = normalize(text)
    if not text.strip() or len(text) > MAX_TEXT:
        raise Invalid(f"a post's text is 1 to {MAX_TEXT} characters")
    new_rolls = find_inline_rolls(text)
    if new_rolls:
        raise Invalid(
            f"an edit never rolls: {new_rolls[0].source.strip()[:60]!r} (line {new_rolls[0].line}) would be a new roll",
            hint="roll in a new post; [[#n]] marks where this post's roll n shows",
        )
    c_rolls = {r.get("inline") for r in p.rolls} | {
        r.get("inline") for k in p.secrets if k in s.secrets for r in s.secrets[k]["rolls"]
    }
    for n in roll_marks(text):
        if n not in c_rolls:
            raise Invalid(f"[[#{n}]]: this post has no inline roll {n}", hint="an edit keeps the rolls it has")
    public, blocks = split_secrets(text)
    old = [s.secrets[k]["text"] for k in p.secrets if k in s.secrets]
    if public == p.text and [b.text for b in blocks] == old:
        raise Invalid("the text is unchanged")
    drafts = []
    first = s.head_seq + 1
    for b in blocks:
        readers = _block_readers(c, actor, b, p.audience)
        drafts.append(Draft("post.secret", actor, {"text": b.text, "to": readers}, sorted(set(readers) | {actor})))
    body: dict[str, Any] = {"post": seq, "text": public}
    if blocks:
        body["secrets"] = list(range(first, first + len(blocks)))
    return [*drafts, Draft("post.edited", actor, body, p.audience)]


def delete_post(c: CampaignState, s: SceneState, actor: int, seq: int) -> list[Draft]:
    _open(s)
    p = s.post(seq)
    if p.kind in TABLE_KINDS:
        raise Conflict("the table wrote this entry from the rules: it is not deleted")
    if p.author != actor and c.role_of(actor) != GM:
        raise Forbidden("only the author or the GM deletes a post")
    if p.deleted_at:
        raise Conflict("the post is already deleted")
    return [Draft("post.deleted", actor, {"post": seq}, p.audience)]


def close_scene(
    c: CampaignState, s: SceneState, actor: int, *, seed: str, system: RuleSystem | None = None
) -> tuple[list[Draft], list[Draft]]:
    """Close the scene and reveal its seed (checked against the commitment). With the campaign's ``system``,
    the book's end-of-scene rule is applied to the scene's cast after it (Kalyr: Scratches clear), each change a
    ``character.condition`` entry on the campaign's log with the reason "end of scene"."""
    from .living import scene_end_drafts

    _require_gm(c, actor)
    _open(s)
    if sha256_hex(seed) != s.seed_sha256:
        raise Conflict("the seed does not match the scene's commitment")
    campaign = [Draft("scene.closed", actor, {"scene": s.id})]
    if system is not None:
        campaign += scene_end_drafts(c, actor, system=system, scene=s.id, cast=s.cast)
    return [Draft("scene.closed", actor, {"seed": seed})], campaign
