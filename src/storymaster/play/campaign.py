"""A campaign: its rule system and house rules, members and roles, characters and scenes.

State is a fold over the campaign's log; commands check the rules of the table
and return drafts. Pure: the rule system is passed in, the clock is not used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from ..errors import CharacterError, InputFileError
from ..rules import RuleSystem, validate_data
from .errors import Conflict, Forbidden, Invalid, NotFound
from .log import GM as GM_ONLY
from .log import Draft, Entry
from .rolling import call_system

__all__ = [
    "ROLES",
    "CampaignState",
    "Character",
    "Member",
    "add_member",
    "create_campaign",
    "create_character",
    "fold_campaign",
    "join_by_invite",
    "parse_house_rules",
    "remove_member",
    "update_character",
    "write_note",
]

GM, PLAYER, OBSERVER = "gm", "player", "observer"
ROLES = (GM, PLAYER, OBSERVER)


@dataclass(frozen=True, slots=True)
class Member:
    user: int
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class Character:
    id: int
    owner: int
    name: str
    sheet: Mapping[str, Any]
    version: int = 1
    retired: bool = False


@dataclass(slots=True)
class CampaignState:
    """The campaign as its log says it is now (built by :func:`fold_campaign`; treat as read-only)."""

    id: int
    name: str = ""
    system: str = ""
    description: str = ""
    house_rules: dict[str, Any] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    characters: dict[int, Character] = field(default_factory=dict)
    scenes: dict[int, dict[str, Any]] = field(default_factory=dict)
    notes: list[Entry] = field(default_factory=list)
    #: the role each former member held when they left or were removed
    former: dict[int, str] = field(default_factory=dict)
    #: each character's condition now (JSON, the system's model), once anything changed it
    conditions: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: each character's changes of condition and advancement, oldest first (who, when, what, why)
    condition_history: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    head_seq: int = 0
    head_hash: str | None = None

    def role_of(self, user: int | None) -> str | None:
        m = self.members.get(user) if user is not None else None
        return m.role if m else None

    def gms(self) -> list[int]:
        return [m.user for m in self.members.values() if m.role == GM]

    def character(self, char_id: int) -> Character:
        c = self.characters.get(char_id)
        if c is None:
            raise NotFound(f"campaign {self.id} has no character {char_id}")
        return c


def apply_campaign(state: CampaignState, e: Entry) -> None:
    """Fold one entry into ``state`` (the fold owns its accumulator; callers see only the result)."""
    b = e.body
    k = e.kind
    if k == "campaign.created":
        state.name, state.system = b["name"], b["system"]
        state.description = b.get("description", "")
        state.house_rules = dict(b.get("house_rules") or {})
    elif k == "campaign.house_rules":
        state.house_rules = dict(b["house_rules"])
    elif k == "member.added":
        state.members[b["user"]] = Member(b["user"], b["name"], b["role"])
    elif k == "member.removed":
        gone = state.members.pop(b["user"], None)
        if gone is not None:
            state.former[b["user"]] = gone.role
    elif k == "character.created":
        state.characters[e.seq] = Character(e.seq, b["owner"], b["name"], b["sheet"])
    elif k == "character.updated":
        c = state.characters[b["character"]]
        state.characters[c.id] = replace(c, name=b["name"], sheet=b["sheet"], version=c.version + 1)
        if "why" in b:
            state.condition_history.setdefault(c.id, []).append(
                {"seq": e.seq, "at": e.at, "actor": e.actor, "why": b["why"], "text": " ".join(b.get("events") or ())}
            )
    elif k == "character.condition":
        state.conditions[b["character"]] = dict(b["condition"])
        state.condition_history.setdefault(b["character"], []).append(
            {
                "seq": e.seq,
                "at": e.at,
                "actor": e.actor,
                "why": b.get("why", {}),
                "text": b.get("text", ""),
                "summary": b.get("summary", ""),
                "changes": b.get("changes", {}),
            }
        )
    elif k == "character.retired":
        c = state.characters[b["character"]]
        state.characters[c.id] = replace(c, retired=True)
    elif k == "scene.opened":
        state.scenes[b["scene"]] = {"id": b["scene"], "title": b["title"], "mode": b["mode"], "closed": False}
    elif k == "scene.closed":
        state.scenes[b["scene"]]["closed"] = True
    elif k == "note.written":
        state.notes.append(e)
    state.head_seq, state.head_hash = e.seq, e.hash


def fold_campaign(campaign_id: int, entries: Iterable[Entry], state: CampaignState | None = None) -> CampaignState:
    state = state or CampaignState(campaign_id)
    for e in entries:
        apply_campaign(state, e)
    return state


# --- commands -------------------------------------------------------------------------------


def _require_gm(state: CampaignState, actor: int) -> None:
    if state.role_of(actor) != GM:
        raise Forbidden("only the campaign's GM may do this")


def parse_house_rules(system: RuleSystem, data: Mapping[str, Any] | None) -> dict[str, Any]:
    """House rules checked against the system's model; returns them as JSON (defaults filled in)."""
    try:
        model = validate_data(dict(data or {}), system.house_rules_model, source="house_rules")
    except InputFileError as exc:
        raise Invalid(exc.message, hint=f"see: storymaster house-rules {system.name}") from None
    return model.model_dump(mode="json")


def create_campaign(
    actor: int,
    actor_name: str,
    *,
    name: str,
    system: RuleSystem,
    house_rules: Mapping[str, Any] | None,
    description: str = "",
) -> list[Draft]:
    rules = parse_house_rules(system, house_rules)
    body = {
        "name": name,
        "system": system.name,
        "system_version": system.version,
        "house_rules": rules,
        "description": description,
    }
    return [
        Draft("campaign.created", actor, body),
        Draft("member.added", actor, {"user": actor, "name": actor_name, "role": GM}),
    ]


def add_member(state: CampaignState, actor: int, *, user: int, name: str, role: str) -> list[Draft]:
    _require_gm(state, actor)
    if role not in ROLES:
        raise Invalid(f"no role {role!r}", hint=f"roles: {', '.join(ROLES)}")
    current = state.members.get(user)
    if current and current.role == role:
        raise Conflict(f"{name} is already a {role} in this campaign")
    if current and current.role == GM and role != GM and len(state.gms()) == 1:
        raise Conflict("a campaign needs at least one GM", hint="make someone else GM first")
    return [Draft("member.added", actor, {"user": user, "name": name, "role": role})]


#: roles an invitation can give, lowest first
INVITE_ROLES = (OBSERVER, PLAYER)


def join_by_invite(state: CampaignState, user: int, *, name: str, role: str) -> list[Draft]:
    """Someone follows an invitation for ``role``: they join, recorded as their own act.

    A member stays as they are (a link never changes a role). A former member comes back
    with at most the role they had when they left, so leaving and rejoining never raises one.
    """
    if role not in INVITE_ROLES:
        raise Invalid(f"an invitation is for a player or an observer, not {role!r}")
    if state.role_of(user) is not None:
        return []
    before = state.former.get(user)
    if before in INVITE_ROLES and INVITE_ROLES.index(before) < INVITE_ROLES.index(role):
        role = before
    return [Draft("member.added", user, {"user": user, "name": name, "role": role, "via": "invitation"})]


def remove_member(state: CampaignState, actor: int, *, user: int) -> list[Draft]:
    if actor != user:
        _require_gm(state, actor)
    m = state.members.get(user)
    if m is None:
        raise NotFound(f"user {user} is not a member of this campaign")
    if m.role == GM and len(state.gms()) == 1:
        raise Conflict("a campaign needs at least one GM", hint="make someone else GM first")
    return [Draft("member.removed", actor, {"user": user})]


def _validated_sheet(
    system: RuleSystem, sheet: Any, house_rules: Mapping[str, Any]
) -> tuple[BaseModel, dict[str, Any]]:
    try:
        model = validate_data(sheet, system.character_model, source="sheet")
    except InputFileError as exc:
        raise Invalid(exc.message, hint=f"see the JSON Schema: storymaster {system.name} schema") from None
    rules = system.house_rules_model.model_validate(house_rules)
    problems = call_system(system, "check the character", system.validate_character, model, rules)
    if problems:
        raise CharacterError(problems, name=str(getattr(model, "name", "")))
    return model, model.model_dump(mode="json")


def _refuse_table_fields(system: RuleSystem, data: Mapping[str, Any], before: Mapping[str, Any] | None) -> None:
    """A player's sheet keeps what play made of the character (the system's ``table_kept``: experience earned,
    advancement, the current condition) as it was, or at the model's default for a new character: those change
    through the GM's awards and the logged play, so no sheet can raise its own budget."""
    kept = tuple(getattr(system, "table_kept", ()) or ())
    if not kept:
        return
    fields = system.character_model.model_fields
    if before is None:
        was = {k: _json_default(fields[k]) for k in kept if k in fields}
    else:
        try:
            was = validate_data(dict(before), system.character_model, source="sheet").model_dump(mode="json")
        except InputFileError:
            was = dict(before)
    changed = [k for k in kept if k in data and data.get(k) != was.get(k)]
    if changed:
        raise Forbidden(
            f"{', '.join(changed)}: kept by the table (experience and advancement the GM awards, the condition "
            "play leaves); a player's sheet cannot change " + ("it" if len(changed) == 1 else "them"),
            hint="ask the GM: awards and adjustments are made at the table and logged",
        )


def _json_default(f: Any) -> Any:
    if f.is_required():
        return None
    from pydantic import TypeAdapter

    return TypeAdapter(f.annotation).dump_python(f.get_default(call_default_factory=True), mode="json")


def character_name(model: BaseModel, fallback: str = "") -> str:
    return str(getattr(model, "name", "") or fallback or "Unnamed")


def create_character(
    state: CampaignState, actor: int, *, system: RuleSystem, sheet: Any, owner: int | None = None, name: str = ""
) -> list[Draft]:
    role = state.role_of(actor)
    owner = actor if owner is None else owner
    if role not in (GM, PLAYER):
        raise Forbidden("only players and GMs have characters")
    if owner != actor and role != GM:
        raise Forbidden("a player creates characters only for themselves")
    if state.role_of(owner) not in (GM, PLAYER):
        raise Invalid(f"user {owner} is not a player in this campaign")
    model, data = _validated_sheet(system, sheet, state.house_rules)
    if role != GM:
        _refuse_table_fields(system, data, None)
    return [Draft("character.created", actor, {"owner": owner, "name": character_name(model, name), "sheet": data})]


def update_character(state: CampaignState, actor: int, char_id: int, *, system: RuleSystem, sheet: Any) -> list[Draft]:
    c = state.character(char_id)
    if c.owner != actor and state.role_of(actor) != GM:
        raise Forbidden("only the character's owner or the GM may change it")
    if c.retired:
        raise Conflict("the character is retired")
    model, data = _validated_sheet(system, sheet, state.house_rules)
    if state.role_of(actor) != GM:
        _refuse_table_fields(system, data, c.sheet)
    return [
        Draft("character.updated", actor, {"character": char_id, "name": character_name(model, c.name), "sheet": data})
    ]


def write_note(state: CampaignState, actor: int, *, text: str) -> list[Draft]:
    _require_gm(state, actor)
    return [Draft("note.written", actor, {"text": text}, audience=GM_ONLY)]
