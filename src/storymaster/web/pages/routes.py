"""The HTML pages: sign-in, campaigns, scenes with the composer, characters, the GM's tools, verification.

Every page that shows table data calls the JSON API's route function for it, so the
same membership checks and visibility rules apply; forms carry the session's CSRF token.
"""

from __future__ import annotations

from typing import Any

import yaml
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ... import safe_yaml
from ...errors import StorymasterError
from ...play.errors import Forbidden, Invalid
from ...play.verify import verify_text
from ...present import card_html
from ...rules import CheckEntry, all_systems, get_system
from ...store.repo import invite_open
from ..accounts import TooManyTries
from ..deps import CSRF_COOKIE, SESSION_COOKIE, Id, now_text, sha256
from ..routers import auth, campaigns, characters, invites, posts, scenes
from ..schemas import (
    CampaignIn,
    CharacterIn,
    CombatIn,
    HouseRulesIn,
    InviteIn,
    JoinIn,
    LoginIn,
    MemberIn,
    NoteIn,
    PostEditIn,
    PostIn,
    PreviewIn,
    RegisterIn,
    SceneIn,
    ScenePatch,
)
from .common import (
    PageError,
    SignInFirst,
    Visitor,
    error_message,
    error_page,
    form_of,
    render,
    require,
    see_other,
    to_sign_in,
    visitor,
)
from .sheets import (
    check_controls,
    check_sheet,
    field_help,
    form_fields,
    merge_form,
    read_check_controls,
    sheet_rows,
    sheet_view,
    split_sheet,
    starter_sheet,
)

router = APIRouter(include_in_schema=False)

VISIBILITY_TEXT = {
    "public": "public: everyone who reads the post",
    "gm": "GM: the GM and you",
    "blind": "blind: the GM only, not even you",
    "self": "self: only you",
}


def _now(request: Request):
    return request.app.state.clock()


def _store(request: Request):
    return request.app.state.store


def _settings(request: Request):
    return request.app.state.settings


def _throttle(request: Request):
    return request.app.state.throttle


def _safe_next(url: str | None) -> str:
    ok = url and url.startswith("/") and not url.startswith(("//", "/\\")) and "\n" not in url and "\r" not in url
    return url if ok else "/campaigns"


def _int(value: Any, what: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        n = int(str(value))
    except ValueError:
        raise PageError(422, f"{what} must be a whole number") from None
    if not 1 <= n <= 2_147_483_647:
        raise PageError(422, f"{what} is out of range")
    return n


def _parse_doc(text: str, what: str) -> Any:
    if not text.strip():
        return {}
    try:
        return safe_yaml.load(text)
    except (yaml.YAMLError, RecursionError) as exc:
        raise PageError(
            422, f"the {what} is not valid YAML or JSON", (str(exc).splitlines() or ["too deeply nested"])[0]
        ) from None


async def _run(request: Request, fn):
    """Run a page handler: sign-in redirects and errors become pages (4xx, never 500)."""
    try:
        return await fn()
    except SignInFirst:
        return to_sign_in(request)
    except (PageError, ValidationError, StorymasterError) as exc:
        return error_page(request, exc)


# ---------------------------------------------------------------- accounts


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    if visitor(request):
        return see_other("/campaigns")
    return render(request, "home.html")


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "/campaigns") -> Response:
    return render(request, "login.html", next=_safe_next(next), error="")


@router.post("/login", response_class=HTMLResponse)
async def login_submit(request: Request) -> Response:
    try:
        form = await form_of(request, None)
    except PageError as exc:
        return error_page(request, exc)
    nxt = _safe_next(str(form.get("next") or ""))
    name, password = str(form.get("name") or ""), str(form.get("password") or "")
    try:
        auth.check_origin(request)
        body = LoginIn(name=name, password=password)
        resp = see_other(nxt)
        auth.sign_in(
            body, resp, _store(request), _settings(request), _now(request), auth.client_of(request), _throttle(request)
        )
        return resp
    except TooManyTries as exc:
        return render(request, "login.html", status=429, next=nxt, error=exc.message, name=name)
    except (ValidationError, StorymasterError):
        return render(request, "login.html", status=401, next=nxt, error="Wrong name or password.", name=name)


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(request: Request, next: str = "/campaigns") -> Response:
    return render(request, "signup.html", next=_safe_next(next), error="")


@router.post("/signup", response_class=HTMLResponse)
async def signup_submit(request: Request) -> Response:
    try:
        form = await form_of(request, None)
    except PageError as exc:
        return error_page(request, exc)
    nxt = _safe_next(str(form.get("next") or ""))
    name, password, email = (
        str(form.get("name") or ""),
        str(form.get("password") or ""),
        str(form.get("email") or "") or None,
    )
    try:
        auth.check_origin(request)
        auth.create_account(
            RegisterIn(name=name, password=password, email=email), _store(request), _settings(request), _now(request)
        )
        resp = see_other(nxt)
        auth.sign_in(
            LoginIn(name=name, password=password),
            resp,
            _store(request),
            _settings(request),
            _now(request),
            auth.client_of(request),
            _throttle(request),
        )
        return resp
    except (ValidationError, StorymasterError) as exc:
        _, message, _ = error_message(exc)
        return render(request, "signup.html", status=422, next=nxt, error=message, name=name, email=email or "")


@router.post("/logout")
async def logout(request: Request) -> Response:
    async def go():
        v = require(request)
        await form_of(request, v)
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            _store(request).delete_session(sha256(cookie))
        resp = see_other("/")
        resp.delete_cookie(SESSION_COOKIE)
        resp.delete_cookie(CSRF_COOKIE)
        return resp

    return await _run(request, go)


# ---------------------------------------------------------------- campaigns


@router.get("/campaigns", response_class=HTMLResponse)
async def campaign_list(request: Request) -> Response:
    async def go():
        v = require(request)
        mine = campaigns.list_mine(_store(request), v.caller)
        systems = sorted((s.name, s.title) for s in all_systems().values())
        return render(request, "campaigns.html", v=v, campaigns=mine, systems=systems)

    return await _run(request, go)


@router.post("/campaigns")
async def campaign_create(request: Request) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        body = CampaignIn(
            name=str(form.get("name") or ""),
            system=str(form.get("system") or ""),
            description=str(form.get("description") or ""),
        )
        view = campaigns.create(body, _store(request), v.caller, _now(request))
        return see_other(f"/campaigns/{view['id']}")

    return await _run(request, go)


def _campaign_ctx(request: Request, v: Visitor, cid: int) -> dict[str, Any]:
    store = _store(request)
    view = campaigns.read(cid, store, v.caller)
    system = get_system(view["system"])
    ctx: dict[str, Any] = {
        "c": view,
        "system": system,
        "names": {m["user"]: m["name"] for m in view["members"]},
        "field_help": lambda: field_help(system),
    }
    if view["your_role"] == "gm":
        ctx["notes"] = campaigns.notes(cid, store, v.caller)
        ctx["invites"] = invites.list_invites(cid, store, v.caller, _now(request))
        ctx["house_rules_yaml"] = yaml.safe_dump(view["house_rules"], sort_keys=True) if view["house_rules"] else ""
    return ctx


@router.get("/campaigns/{cid}", response_class=HTMLResponse)
async def campaign_page(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        return render(request, "campaign.html", v=v, **_campaign_ctx(request, v, cid))

    return await _run(request, go)


@router.post("/campaigns/{cid}/members")
async def campaign_add_member(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        campaigns.add_member(
            cid,
            MemberIn(user=str(form.get("user") or ""), role=str(form.get("role") or "player")),
            _store(request),
            v.caller,
            _now(request),
        )
        return see_other(f"/campaigns/{cid}#members")

    return await _run(request, go)


@router.post("/campaigns/{cid}/house-rules")
async def campaign_house_rules(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        rules = _parse_doc(str(form.get("house_rules") or ""), "house rules")
        if not isinstance(rules, dict):
            raise PageError(422, "house rules are a mapping of option: value")
        campaigns.set_house_rules(cid, HouseRulesIn(house_rules=rules), _store(request), v.caller, _now(request))
        return see_other(f"/campaigns/{cid}#house-rules")

    return await _run(request, go)


@router.post("/campaigns/{cid}/notes")
async def campaign_note(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        campaigns.write_note(cid, NoteIn(text=str(form.get("text") or "")), _store(request), v.caller, _now(request))
        back = _safe_next(str(form.get("back") or f"/campaigns/{cid}#notes"))
        return see_other(back)

    return await _run(request, go)


@router.post("/campaigns/{cid}/invites", response_class=HTMLResponse)
async def campaign_invite(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        body = InviteIn(
            role=str(form.get("role") or "player"),
            expires_in_hours=_int(form.get("expires_in_hours"), "expires after"),
            max_uses=_int(form.get("max_uses"), "uses"),
        )
        made = invites.create_invite(cid, body, _store(request), v.caller, _now(request))
        ctx = _campaign_ctx(request, v, cid)
        return render(request, "campaign.html", v=v, new_invite=made, **ctx)

    return await _run(request, go)


@router.post("/campaigns/{cid}/invites/{iid}/revoke")
async def campaign_revoke_invite(request: Request, cid: Id, iid: Id) -> Response:
    async def go():
        v = require(request)
        await form_of(request, v)
        invites.revoke_invite(cid, iid, _store(request), v.caller, _now(request))
        return see_other(f"/campaigns/{cid}#members")

    return await _run(request, go)


def _open_invite(request: Request, cid: int, token: str) -> Any:
    row = _store(request).invite(cid, sha256(token)) if len(token) <= 200 else None
    if row is None or not invite_open(row._mapping, now_text(_now(request))):
        raise PageError(
            404, "this invitation link is not valid (unknown, revoked, expired or used up)", "ask the GM for a new link"
        )
    return row


@router.get("/join/{cid}/{token}", response_class=HTMLResponse)
async def join_page(request: Request, cid: Id, token: str) -> Response:
    async def go():
        v = require(request)
        store = _store(request)
        invite = _open_invite(request, cid, token)
        with store.reading_campaign(cid) as c:
            name, role = c.name, c.role_of(v.caller.id)
        if role is not None:
            return see_other(f"/campaigns/{cid}")
        return render(request, "join.html", v=v, cid=cid, token=token, name=name, role=invite.role)

    return await _run(request, go)


@router.post("/join/{cid}/{token}")
async def join_submit(request: Request, cid: Id, token: str) -> Response:
    async def go():
        v = require(request)
        await form_of(request, v)
        if len(token) > 200:
            raise PageError(404, "this invitation link is not valid")
        invites.join(cid, JoinIn(token=token), _store(request), v.caller, _now(request))
        return see_other(f"/campaigns/{cid}")

    return await _run(request, go)


# ---------------------------------------------------------------- characters


def _report(system: Any, sheet: dict[str, Any], problem: str, house_rules: dict[str, Any]) -> dict[str, Any]:
    report = check_sheet(system, sheet, house_rules)
    if problem:
        report["ok"] = False
        report["problems"] = [{"where": "lists and details", "message": problem}, *report["problems"]]
    return report


@router.get("/campaigns/{cid}/characters/new", response_class=HTMLResponse)
async def character_new(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        ctx = _campaign_ctx(request, v, cid)
        system = ctx["system"]
        if ctx["c"]["your_role"] not in ("gm", "player"):
            raise Forbidden("observers do not make characters")
        start = safe_yaml.load(starter_sheet(system)) or {}
        values, text = split_sheet(system, start)
        report = check_sheet(system, start, ctx["c"]["house_rules"])
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(system),
            sheet_text=text,
            report=report,
            char=None,
            **ctx,
        )

    return await _run(request, go)


@router.post("/campaigns/{cid}/characters/check")
async def character_check(request: Request, cid: Id) -> Response:
    """The builder's running check (JSON for the script; an HTML page without it)."""

    async def go():
        v = require(request)
        form = await form_of(request, v)
        ctx = _campaign_ctx(request, v, cid)
        system = ctx["system"]
        sheet, values, text, problem = merge_form(system, form)
        report = _report(system, sheet, problem, ctx["c"]["house_rules"])
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({**report, "html": render(request, "_report.html", v=v, report=report).body.decode()})
        char = _int(form.get("char"), "character")
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(system),
            sheet_text=text,
            report=report,
            char=char,
            **ctx,
        )

    return await _run(request, go)


@router.post("/campaigns/{cid}/characters")
async def character_create(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        ctx = _campaign_ctx(request, v, cid)
        system = ctx["system"]
        sheet, values, text, problem = merge_form(system, form)
        char = _int(form.get("char"), "character")
        store, now = _store(request), _now(request)
        try:
            if problem:
                raise PageError(422, problem)
            if char:
                view = characters.update_character(cid, char, CharacterIn(sheet=sheet), store, v.caller, now)
            else:
                view = characters.create_character(cid, CharacterIn(sheet=sheet), store, v.caller, now)
        except (ValidationError, StorymasterError, PageError) as exc:
            report = _report(system, sheet, problem, ctx["c"]["house_rules"])
            if not report["problems"]:
                report["problems"] = [{"where": "", "message": error_message(exc)[1]}]
            status = getattr(exc, "status", 422)
            return render(
                request,
                "builder.html",
                status=status if 400 <= status < 500 else 422,
                v=v,
                values=values,
                fields=form_fields(system),
                sheet_text=text,
                report=report,
                char=char,
                **ctx,
            )
        return see_other(f"/campaigns/{cid}/characters/{view['id']}")

    return await _run(request, go)


@router.get("/campaigns/{cid}/characters/{char}", response_class=HTMLResponse)
async def character_page(request: Request, cid: Id, char: Id) -> Response:
    async def go():
        v = require(request)
        ctx = _campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, _store(request), v.caller)
        can_edit = ctx["c"]["your_role"] == "gm" or view["owner"] == v.caller.id
        sheet, why = sheet_view(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
        return render(
            request,
            "sheet.html",
            v=v,
            ch=view,
            rows=sheet_rows(view["sheet"]),
            sheet=sheet,
            sheet_problem=why,
            can_edit=can_edit,
            **ctx,
        )

    return await _run(request, go)


@router.get("/campaigns/{cid}/characters/{char}/edit", response_class=HTMLResponse)
async def character_edit(request: Request, cid: Id, char: Id) -> Response:
    async def go():
        v = require(request)
        ctx = _campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, _store(request), v.caller)
        if not (ctx["c"]["your_role"] == "gm" or view["owner"] == v.caller.id):
            raise Forbidden("only the character's owner or the GM edits it")
        values, text = split_sheet(ctx["system"], view["sheet"])
        report = check_sheet(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
        return render(
            request,
            "builder.html",
            v=v,
            values=values,
            fields=form_fields(ctx["system"]),
            sheet_text=text,
            report=report,
            char=char,
            **ctx,
        )

    return await _run(request, go)


@router.get("/campaigns/{cid}/characters/{char}/card", response_class=HTMLResponse)
async def character_card(request: Request, cid: Id, char: Id) -> Response:
    """A printable card of the character's structured sheet (B.U.M.'s Appendix B card, and every other system's)."""

    async def go():
        v = require(request)
        ctx = _campaign_ctx(request, v, cid)
        view = characters.read_character(cid, char, _store(request), v.caller)
        sheet, why = sheet_view(ctx["system"], view["sheet"], ctx["c"]["house_rules"])
        if sheet is None:
            raise PageError(422, f"this sheet cannot be made into a card: {why}")
        return HTMLResponse(card_html(sheet, title=ctx["system"].display_name or ctx["system"].title))

    return await _run(request, go)


# ---------------------------------------------------------------- scenes


@router.post("/campaigns/{cid}/scenes")
async def scene_open(request: Request, cid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        cast = [_int(x, "cast") for x in form.getlist("cast")]
        mode = str(form.get("mode") or "free")
        hours = str(form.get("turn_hours") or "").strip()
        try:
            turn_seconds = int(float(hours) * 3600) if hours else None
        except (ValueError, OverflowError):
            raise PageError(422, "the deadline is a number of hours") from None
        body = SceneIn(
            title=str(form.get("title") or ""),
            mode=mode,
            cast=[c for c in cast if c],
            turn_seconds=turn_seconds,
            on_deadline=str(form.get("on_deadline") or "") or None,
        )
        view = scenes.open_scene(cid, body, _store(request), v.caller, _now(request))
        return see_other(f"/scenes/{view['id']}")

    return await _run(request, go)


def _scene_ctx(request: Request, v: Visitor, sid: int, *, forecast: bool = True) -> dict[str, Any]:
    store = _store(request)
    scene = scenes.read_scene(sid, store, v.caller)
    ctx = _campaign_ctx(request, v, scene["campaign"])
    post_list = posts.list_posts(sid, store, v.caller, after=0, limit=1000)
    c = ctx["c"]
    chars = {ch["id"]: ch for ch in c["characters"]}
    is_gm = c["your_role"] == "gm"
    mine = [ch for ch in c["characters"] if not ch["retired"] and (is_gm or ch["owner"] == v.caller.id)]
    owed = scene.get("turn", {}).get("owed", [])
    ctx.update(
        scene=scene,
        posts=post_list,
        chars=chars,
        my_chars=mine,
        owed=owed,
        is_gm=is_gm,
        check_kinds=list(ctx["system"].check_kinds),
        check_entries=_check_entries(ctx["system"], _with_sheets(store, v, c["id"], mine), c["house_rules"]),
        visibility_text=VISIBILITY_TEXT,
        check_help=_check_help(ctx["system"]),
        check_controls={k.name: check_controls(k.model) for k in ctx["system"].check_kinds},
        last_post=max((p["id"] for p in post_list), default=0),
    )
    if forecast and is_gm and scene.get("combat"):
        ctx["forecast"] = _forecast(store, sid, ctx["system"], scene["combat"])
    return ctx


def _check_help(system: Any) -> dict[str, dict[str, Any]]:
    """Each check kind's title, summary and fields (from the catalogue), for the composer's help."""
    return {
        k.name: {
            "title": k.title,
            "summary": k.summary,
            "fields": [
                {"name": p["name"], "required": p["required"], "help": p["description"]}
                for p in k.parameters()
                if p["name"] != "type"
            ],
        }
        for k in system.check_kinds
    }


def _with_sheets(store: Any, v: Visitor, cid: int, chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The characters with their sheets (the campaign view lists them without)."""
    if not chars:
        return []
    sheets = {ch["id"]: ch["sheet"] for ch in characters.list_characters(cid, store, v.caller)}
    return [{**ch, "sheet": sheets.get(ch["id"], {})} for ch in chars]


def _check_entries(
    system: Any, chars: list[dict[str, Any]], house_rules: Any
) -> list[tuple[dict[str, Any], list[CheckEntry]]]:
    """What each of the writer's characters can roll (the system's catalogue of checks for the sheet)."""
    out = []
    for ch in chars:
        try:
            entries = system.checks_for(ch.get("sheet") or {}, house_rules or None)
        except StorymasterError:
            continue  # a sheet the rules cannot read offers no checks; its page says why
        if entries:
            out.append((ch, entries))
    return out


def _entry_of(request: Request, v: Visitor, sid: int, system: Any, value: str) -> CheckEntry:
    """The catalogue entry ``character-id|key`` the composer names, for a character the writer may see."""
    char_text, _, key = value.partition("|")
    char = _int(char_text, "character")
    store = _store(request)
    scene = scenes.read_scene(sid, store, v.caller)
    camp = campaigns.read(scene["campaign"], store, v.caller)
    view = characters.read_character(scene["campaign"], char or 0, store, v.caller)
    entries = system.checks_for(view["sheet"], camp["house_rules"] or None)
    for e in entries:
        if e.key == key:
            return e
    raise PageError(422, f"{view['name']} has no check {key!r}", "choose one from the list")


def _forecast(store: Any, sid: int, system: Any, fight: dict[str, Any]) -> dict[str, Any] | None:
    """The system's whole-fight forecast from the stored fight state, when the system has one."""
    fn = getattr(system, "forecast", None)
    if fn is None or fight.get("over"):
        return None
    try:
        from ...play.combat import _models, _rules

        with store.reading_scene(sid) as (c, _s):
            sides = fight["sides"]
            fresh = system.combat.start(
                _models(c, system, sides), house_rules=_rules(c, system), options=dict(fight.get("options") or {})
            )
        state = type(fresh).model_validate(fight["state"])
        result = fn(state, samples=300, seed=1)  # modest: the page waits for it
        return result.to_json() if hasattr(result, "to_json") else {"problem": "the forecast gave no figures"}
    except Exception as exc:
        return {"problem": (str(exc).splitlines() or [type(exc).__name__])[0]}


@router.get("/scenes/{sid}", response_class=HTMLResponse)
async def scene_page(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        ctx = _scene_ctx(request, v, sid)
        return render(request, "scene.html", v=v, draft={}, preview=None, **ctx)

    return await _run(request, go)


@router.get("/scenes/{sid}/story", response_class=HTMLResponse)
async def scene_story(request: Request, sid: Id) -> Response:
    """The story part of the scene page alone (the live-update script swaps it in)."""

    async def go():
        v = require(request)
        ctx = _scene_ctx(request, v, sid, forecast=False)
        return render(request, "_story.html", v=v, **ctx)

    return await _run(request, go)


def _roll_from_form(form: Any, system: Any = None, entry: CheckEntry | None = None) -> dict[str, Any] | None:
    kind = str(form.get("roll_kind") or "none")
    label = str(form.get("roll_label") or "")[:200]
    if kind == "dice":
        dice = str(form.get("dice") or "").strip()
        if not dice:
            raise PageError(422, "write the dice to roll, such as 2d6+1")
        return {"dice": dice, "label": label}
    if kind == "check":
        fields = _parse_doc(str(form.get("check_fields") or ""), "check's fields")
        if fields is None:
            fields = {}
        if not isinstance(fields, dict):
            raise PageError(422, "the check's fields are a mapping of field: value")
        ctype = entry.check if entry is not None else str(form.get("check_type") or "")
        model = system.check_types.get(ctype) if system is not None else None
        if model is not None:
            fields = {**fields, **read_check_controls(model, form, f"chk.{ctype}.")}
        if entry is not None:  # the character's entry fills in what the form leaves out
            check = system.make_check(entry, fields)
            fields = check.model_dump(mode="json")
            label = label or entry.label
        return {"check": {"type": ctype, **fields}, "label": label}
    return None


def _chosen_entry(request: Request, v: Visitor, sid: int, system: Any, form: Any) -> CheckEntry | None:
    value = str(form.get("check_entry") or "")
    if system is None or not value or str(form.get("roll_kind") or "") != "check":
        return None
    return _entry_of(request, v, sid, system, value)


def _system_of_scene(request: Request, sid: int) -> Any:
    """The scene's rule system, or None when the scene does not exist (the API call after says so)."""
    try:
        with _store(request).reading_scene(sid) as (c, _s):
            return get_system(c.system)
    except StorymasterError:
        return None


@router.post("/scenes/{sid}/preview")
async def scene_preview(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        system = _system_of_scene(request, sid)
        roll = _roll_from_form(form, system, _chosen_entry(request, v, sid, system, form))
        if roll is None:
            raise PageError(422, "choose dice or a check to see its odds")
        result = posts.preview_roll(sid, PreviewIn(**roll), _store(request), v.caller)
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"html": render(request, "_odds.html", v=v, preview=result).body.decode()})
        ctx = _scene_ctx(request, v, sid)
        return render(request, "scene.html", v=v, draft=dict(form), preview=result, **ctx)

    async def wrapped():
        try:
            return await go()
        except (PageError, ValidationError, StorymasterError) as exc:
            if "application/json" in request.headers.get("accept", ""):
                status, message, hint = error_message(exc)
                return JSONResponse({"error": message, "hint": hint}, status_code=status)
            raise

    return await _run(request, wrapped)


@router.post("/scenes/{sid}/posts")
async def scene_post(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        kind = str(form.get("kind") or "ic")
        system = _system_of_scene(request, sid)
        roll = _roll_from_form(form, system, _chosen_entry(request, v, sid, system, form))
        if roll is not None:
            roll["visibility"] = str(form.get("visibility") or "public")
        to = [x for x in (_int(t, "reader") for t in form.getlist("to")) if x]
        if kind == "private" and not to:
            raise PageError(422, "choose who reads a private post")
        body = PostIn(
            kind=kind,
            text=str(form.get("text") or ""),
            character=_int(form.get("character"), "character") if kind == "ic" else None,
            to=to if kind == "private" else [],
            rolls=[roll] if roll else [],
            force=form.get("force") == "on",
        )
        if form.get("action") == "preview":
            ctx = _scene_ctx(request, v, sid)
            result = (
                posts.preview_roll(
                    sid, PreviewIn(**{k: v2 for k, v2 in roll.items() if k != "visibility"}), _store(request), v.caller
                )
                if roll
                else None
            )
            return render(request, "scene.html", v=v, draft=dict(form), preview=result, text_preview=body.text, **ctx)
        view = posts.create_post(sid, body, _store(request), v.caller, _now(request))
        return see_other(f"/scenes/{sid}#post-{view['id']}")

    return await _run(request, go)


@router.post("/scenes/{sid}/posts/{pid}/edit")
async def scene_post_edit(request: Request, sid: Id, pid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        posts.edit_post(
            sid, pid, PostEditIn(text=str(form.get("text") or "")), _store(request), v.caller, _now(request)
        )
        return see_other(f"/scenes/{sid}#post-{pid}")

    return await _run(request, go)


@router.post("/scenes/{sid}/posts/{pid}/delete")
async def scene_post_delete(request: Request, sid: Id, pid: Id) -> Response:
    async def go():
        v = require(request)
        await form_of(request, v)
        posts.delete_post(sid, pid, _store(request), v.caller, _now(request))
        return see_other(f"/scenes/{sid}#post-{pid}")

    return await _run(request, go)


@router.post("/scenes/{sid}/settings")
async def scene_settings(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        hours = str(form.get("turn_hours") or "").strip()
        try:
            turn_seconds = int(float(hours) * 3600) if hours else None
        except (ValueError, OverflowError):
            raise PageError(422, "the deadline is a number of hours") from None
        cast = [x for x in (_int(c, "cast") for c in form.getlist("cast")) if x]
        body = ScenePatch(
            title=str(form.get("title") or ""),
            mode=str(form.get("mode") or "free"),
            cast=cast,
            turn_seconds=turn_seconds,
            on_deadline=str(form.get("on_deadline") or "skip"),
        )
        scenes.patch_scene(sid, body, _store(request), v.caller, _now(request))
        return see_other(f"/scenes/{sid}#gm")

    return await _run(request, go)


@router.post("/scenes/{sid}/close")
async def scene_close(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        await form_of(request, v)
        scenes.close_scene(sid, _store(request), v.caller, _now(request))
        return see_other(f"/scenes/{sid}")

    return await _run(request, go)


@router.post("/scenes/{sid}/fight")
async def scene_fight(request: Request, sid: Id) -> Response:
    async def go():
        v = require(request)
        form = await form_of(request, v)
        action = str(form.get("action") or "")
        store, now = _store(request), _now(request)
        if action == "start":
            sides = [[x for x in (_int(i, "fighter") for i in form.getlist(f"side{n}")) if x] for n in (1, 2)]
            scenes.start_combat(sid, CombatIn(sides=sides), store, v.caller, now)
        elif action == "step":
            scenes.step_combat(sid, store, v.caller, now)
        elif action == "end":
            scenes.end_combat(sid, store, v.caller, now)
        else:
            raise Invalid("choose start, step or end")
        return see_other(f"/scenes/{sid}#fight")

    return await _run(request, go)


# ---------------------------------------------------------------- verification


@router.get("/verify", response_class=HTMLResponse)
async def verify_page(request: Request) -> Response:
    return render(request, "verify.html", result=None, error="", text="", key_id=request.app.state.signer.key_id)


@router.post("/verify", response_class=HTMLResponse)
async def verify_submit(request: Request) -> Response:
    async def go():
        form = await form_of(request, visitor(request))
        text = str(form.get("export") or "")
        upload = form.get("file")
        if upload is not None and hasattr(upload, "read"):
            data = await upload.read()
            if data:
                text = data.decode("utf-8", errors="replace")
        if not text.strip():
            return render(
                request, "verify.html", status=422, result=None, error="Paste an export or choose its file.", text=""
            )
        try:
            result = await run_in_threadpool(verify_text, text, key=request.app.state.signer.public)
        except StorymasterError as exc:
            return render(
                request,
                "verify.html",
                status=422,
                result=None,
                error=exc.message,
                hint=exc.hint or "",
                text=text[:200_000],
                key_id=request.app.state.signer.key_id,
            )
        return render(request, "verify.html", result=result, error="", text="", key_id=request.app.state.signer.key_id)

    return await _run(request, go)
