"""Scene pages: opening a scene, the scene with its composer, posts, previews, settings, the fight tracker.

Every handler reads the posted form on the event loop and runs its work (``go``) in the
thread pool (``common.run_page``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError

from ...errors import StorymasterError
from ...play.errors import Forbidden, Invalid
from ...play.scene import StillWaiting
from ...present.markup import quote_text
from ...rules import CheckEntry, get_system
from .. import jobs
from ..deps import Id
from ..routers import campaigns, characters, posts, scenes
from ..schemas import (
    CombatIn,
    PostEditIn,
    PostIn,
    PreviewIn,
    SceneIn,
    ScenePatch,
)
from ..work import TooMuchWork, WorkersBusy
from .common import (
    PageError,
    Visitor,
    error_message,
    form_of,
    render,
    require,
    run_page,
    see_other,
)
from .dashboard import story_ctx
from .helpers import (
    VISIBILITY_TEXT,
    campaign_ctx,
    now_of,
    store_of,
    whole,
    work_of,
)
from .sheets import apply_check_op, check_forms, read_check

router = APIRouter(include_in_schema=False)


@router.post("/campaigns/{cid}/scenes")
async def scene_open(request: Request, cid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        cast = [whole(x, "cast") for x in form.getlist("cast")]
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
        view = scenes.open_scene(cid, body, store_of(request), v.caller, now_of(request))
        return see_other(f"/scenes/{view['id']}")

    return await run_page(request, go)


def _scene_ctx(
    request: Request,
    v: Visitor,
    sid: int,
    *,
    forecast: bool = True,
    exact: bool = False,
    before: int | None = None,
    after: int | None = None,
    form: Any = None,
    check_problem: dict[str, Any] | None = None,
    check_values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The scene page's context: one page of the story (the newest unless ``before``/``after`` say which;
    showing the newest marks the scene read), the turn, the composer's lists, the GM's tools."""
    store = store_of(request)
    scene = scenes.read_scene(sid, store, v.caller)
    ctx = campaign_ctx(request, v, scene["campaign"])
    ctx.update(story_ctx(store, v.caller, sid, before=before, after=after))
    c = ctx["c"]
    chars = {ch["id"]: ch for ch in c["characters"]}
    is_gm = c["your_role"] == "gm"
    mine = [ch for ch in c["characters"] if not ch["retired"] and (is_gm or ch["owner"] == v.caller.id)]
    owed = scene.get("turn", {}).get("owed", [])
    ctx.update(
        scene=scene,
        chars=chars,
        my_chars=mine,
        owed=owed,
        is_gm=is_gm,
        check_kinds=list(ctx["system"].check_kinds),
        check_entries=_check_entries(ctx["system"], _with_sheets(store, v, c["id"], mine), c["house_rules"]),
        visibility_text=VISIBILITY_TEXT,
        check_forms=check_forms(
            ctx["system"],
            form,
            opponents=_check_entries(ctx["system"], _with_sheets(store, v, c["id"], _cast(scene, c)), c["house_rules"]),
            problem=check_problem,
            values=check_values,
        ),
    )
    combat = scene.get("combat")
    if forecast and is_gm and combat and not combat.get("over") and hasattr(ctx["system"], "forecast"):
        ctx["forecast"] = _forecast(request, sid, ctx["system_name"], combat, exact=exact)
    return ctx


def _cast(scene: dict[str, Any], c: dict[str, Any]) -> list[dict[str, Any]]:
    """Whom a check can be made against: the scene's cast (every active character when it names none)."""
    cast = {m["id"] for m in scene.get("cast") or []}
    return [ch for ch in c["characters"] if not ch["retired"] and (not cast or ch["id"] in cast)]


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
    char = whole(char_text, "character")
    store = store_of(request)
    scene = scenes.read_scene(sid, store, v.caller)
    camp = campaigns.read(scene["campaign"], store, v.caller)
    view = characters.read_character(scene["campaign"], char or 0, store, v.caller)
    entries = system.checks_for(view["sheet"], camp["house_rules"] or None)
    for e in entries:
        if e.key == key:
            return e
    raise PageError(422, f"{view['name']} has no check {key!r}", "choose one from the list")


#: fights the GM page's forecast simulates: an interval of about +-3 points, in a fraction of a second
FORECAST_SAMPLES = 1_000


def _forecast(request: Request, sid: int, system_name: str, fight: dict[str, Any], *, exact: bool) -> dict[str, Any]:
    """The system's whole-fight forecast from the stored fight: simulated with a small sample (its interval
    shown), or the exact chain when asked; in a compute worker within the budget, kept per (scene, log head)."""
    from ...play.combat import _models

    with store_of(request).reading_scene(sid) as (c, s):
        key = (sid, s.head_seq, s.head_hash, c.head_seq, "exact" if exact else "simulate")
        cache = request.app.state.forecasts
        found = cache.get(key)
        if found is not None:
            return found
        system = get_system(c.system)
        try:
            models = _models(c, system, fight["sides"])
            rules = dict(c.house_rules)
        except StorymasterError as exc:
            return {"problem": exc.message}
    try:
        result = work_of(request).call(
            jobs.fight_forecast,
            jobs.system_ref(system_name),
            models,
            rules,
            dict(fight.get("options") or {}),
            fight["state"],
            "exact" if exact else "simulate",
            None if exact else FORECAST_SAMPLES,
            what="exact forecast" if exact else "forecast",
        )
    except WorkersBusy as exc:
        return {"problem": exc.message, "hint": exc.hint or ""}
    except TooMuchWork as exc:
        result = {"problem": exc.message, "hint": exc.hint or ""}
    cache.put(key, result)
    return result


@router.get("/scenes/{sid}", response_class=HTMLResponse)
async def scene_page(
    request: Request,
    sid: Id,
    before: int | None = Query(None, ge=0, le=2_147_483_647, description="the page of posts before this post id"),
    after: int | None = Query(None, ge=0, le=2_147_483_647, description="the page of posts after this post id"),
    quote: int | None = Query(None, ge=1, le=2_147_483_647, include_in_schema=False),
    forecast: str = Query("", max_length=10, include_in_schema=False),
) -> Response:
    def go():
        v = require(request)
        ctx = _scene_ctx(request, v, sid, exact=forecast == "exact", before=before, after=after)
        draft = {}
        if quote is not None:  # "Quote": the composer starts with the post as this reader sees it
            post = posts.read_post(sid, quote, store_of(request), v.caller)
            draft = {"text": quote_text(quote, post.get("text", ""))}
        return render(request, "scene.html", v=v, draft=draft, preview=None, **ctx)

    return await run_page(request, go)


@router.get("/scenes/{sid}/story", response_class=HTMLResponse)
async def scene_story(request: Request, sid: Id) -> Response:
    """The story part of the scene page alone (its newest page; live updates no longer fetch it: they carry deltas)."""

    def go():
        v = require(request)
        ctx = _scene_ctx(request, v, sid, forecast=False)
        return render(request, "_story.html", v=v, **ctx)

    return await run_page(request, go)


def _roll_from_form(
    form: Any, system: Any = None, entry: CheckEntry | None = None, opponent: CheckEntry | None = None
) -> dict[str, Any] | None:
    kind = str(form.get("roll_kind") or "none")
    label = str(form.get("roll_label") or "")[:200]
    if kind == "dice":
        dice = str(form.get("dice") or "").strip()
        if not dice:
            raise PageError(422, "write the dice to roll, such as 2d6+1")
        return {"dice": dice, "label": label}
    if kind == "check":
        if system is None:
            raise PageError(404, "no such scene")
        # the chosen kind's controls; a character's entry fills in what its current sheet holds
        ctype, fields = read_check(system, form, entry, opponent)
        check = system.make_check(entry if entry is not None else ctype, fields)
        label = label or (entry.label if entry is not None else "")
        out: dict[str, Any] = {}
        who = str(form.get("check_entry") or "").partition("|")[0]
        if entry is not None and who.isdigit():  # the character rolls it: their condition's penalties apply
            out["character"] = int(who)
        return {"check": {"type": ctype, **check.model_dump(mode="json")}, "label": label, **out}
    return None


def _chosen_entry(request: Request, v: Visitor, sid: int, system: Any, form: Any) -> CheckEntry | None:
    value = str(form.get("check_entry") or "")
    if system is None or not value or str(form.get("roll_kind") or "") != "check":
        return None
    return _entry_of(request, v, sid, system, value)


def _chosen_opponent(
    request: Request, v: Visitor, sid: int, system: Any, form: Any, entry: CheckEntry | None
) -> CheckEntry | None:
    """The cast member's entry the check is made against (``opp.<kind>`` = ``character-id|key``), if chosen."""
    if system is None or str(form.get("roll_kind") or "") != "check":
        return None
    kind = entry.check if entry is not None else str(form.get("check_type") or "")
    value = str(form.get(f"opp.{kind}") or "")
    return _entry_of(request, v, sid, system, value) if value else None


def _check_roll(request: Request, v: Visitor, sid: int, system: Any, form: Any) -> dict[str, Any] | None:
    entry = _chosen_entry(request, v, sid, system, form)
    return _roll_from_form(form, system, entry, _chosen_opponent(request, v, sid, system, form, entry))


def _check_problem(form: Any, exc: Exception) -> dict[str, Any] | None:
    """A refused check's problem for its field: ``{kind, where, message}`` (None for other errors)."""
    if not isinstance(exc, StorymasterError) or str(form.get("roll_kind") or "") != "check":
        return None
    entry = str(form.get("check_entry") or "")
    kind = entry.partition("|")[2].split(":", 1)[0] if entry else str(form.get("check_type") or "")
    return {
        "kind": kind,
        "where": getattr(exc, "where", "") or "",
        "message": exc.message,
    }


def _system_of_scene(request: Request, sid: int) -> Any:
    """The scene's rule system, or None when the scene does not exist (the API call after says so)."""
    try:
        with store_of(request).reading_scene(sid) as (c, _s):
            return get_system(c.system)
    except StorymasterError:
        return None


@router.post("/scenes/{sid}/preview")
async def scene_preview(request: Request, sid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        system = _system_of_scene(request, sid)
        op = str(form.get("op") or "")
        if op and system is not None:  # a check's row added or removed (the no-script buttons)
            ctx = _scene_ctx(request, v, sid, form=form, check_values=apply_check_op(system, form, op))
            return render(request, "scene.html", v=v, draft=dict(form), preview=None, **ctx)
        try:
            roll = _check_roll(request, v, sid, system, form)
        except StorymasterError as exc:
            problem = _check_problem(form, exc)
            if problem is None or "application/json" in request.headers.get("accept", ""):
                raise
            ctx = _scene_ctx(request, v, sid, form=form, check_problem=problem)
            return render(request, "scene.html", status=422, v=v, draft=dict(form), preview=None, **ctx)
        if roll is None:
            raise PageError(422, "choose dice or a check to see its odds")
        result = posts.preview_roll(sid, PreviewIn(**roll), store_of(request), v.caller, work_of(request))
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"html": render(request, "_odds.html", v=v, preview=result).body.decode()})
        ctx = _scene_ctx(request, v, sid, form=form)
        return render(request, "scene.html", v=v, draft=dict(form), preview=result, **ctx)

    def wrapped():
        try:
            return go()
        except (PageError, ValidationError, StorymasterError) as exc:
            if "application/json" in request.headers.get("accept", ""):
                status, message, hint = error_message(exc)
                return JSONResponse({"error": message, "hint": hint}, status_code=status)
            raise

    return await run_page(request, wrapped)


def _refused(request: Request, v: Visitor, sid: int, form: Any, exc: BaseException, **extra: Any) -> Response:
    """The scene page again with the writer's draft in the composer and the reason it was refused in place."""
    status, message, hint = error_message(exc)
    move_on = getattr(exc, "owed", None) if isinstance(exc, StillWaiting) else None
    if move_on:
        hint = f"or move on now: the button below opens the next round and skips {move_on}"
    ctx = _scene_ctx(request, v, sid)
    return render(
        request,
        "scene.html",
        status=status,
        v=v,
        draft=dict(form),
        draft_to=[str(x) for x in form.getlist("to")],
        preview=None,
        post_error={"message": message, "hint": hint, "move_on": move_on},
        **extra,
        **ctx,
    )


@router.post("/scenes/{sid}/posts")
async def scene_post(request: Request, sid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        try:
            return write(v, form)
        except (PageError, ValidationError, StorymasterError) as exc:
            if isinstance(exc, PageError) and exc.status in (401, 403):
                raise
            try:
                return _refused(request, v, sid, form, exc)
            except (PageError, StorymasterError):
                raise exc from None  # the scene itself cannot be shown: the error page says why

    def write(v: Visitor, form: Any) -> Response:
        kind = str(form.get("kind") or "ic")
        system = _system_of_scene(request, sid)
        roll = _check_roll(request, v, sid, system, form)
        if roll is not None:
            roll["visibility"] = str(form.get("visibility") or "public")
        to = [x for x in (whole(t, "reader") for t in form.getlist("to")) if x]
        body = PostIn.model_validate(
            {
                "kind": kind,
                "text": str(form.get("text") or ""),
                "character": whole(form.get("character"), "character") if kind == "ic" else None,
                "to": to,  # the table refuses readers on a post that is not private, and a private post without them
                "rolls": [roll] if roll else [],
                "force": form.get("force") == "on",
            }
        )
        if form.get("action") == "preview":
            ctx = _scene_ctx(request, v, sid, form=form)
            result = (
                posts.preview_roll(
                    sid,
                    PreviewIn(**{k: v2 for k, v2 in roll.items() if k != "visibility"}),
                    store_of(request),
                    v.caller,
                    work_of(request),
                )
                if roll
                else None
            )
            return render(
                request,
                "scene.html",
                v=v,
                draft=dict(form),
                draft_to=[str(x) for x in to],
                preview=result,
                text_preview=body.text,
                **ctx,
            )
        view = posts.create_post(sid, body, store_of(request), v.caller, now_of(request))
        return see_other(f"/scenes/{sid}#post-{view['id']}")

    return await run_page(request, go)


@router.post("/scenes/{sid}/posts/{pid}/edit")
async def scene_post_edit(request: Request, sid: Id, pid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        text = str(form.get("text") or "")
        try:
            posts.edit_post(sid, pid, PostEditIn(text=text), store_of(request), v.caller, now_of(request))
        except (ValidationError, StorymasterError) as exc:
            status, message, hint = error_message(exc)
            ctx = _scene_ctx(request, v, sid)  # the edit box open again, with the new text and the reason
            edit = {"post": pid, "text": text, "message": message, "hint": hint}
            return render(request, "scene.html", status=status, v=v, draft={}, preview=None, edit_error=edit, **ctx)
        return see_other(f"/scenes/{sid}#post-{pid}")

    return await run_page(request, go)


@router.post("/scenes/{sid}/posts/{pid}/delete")
async def scene_post_delete(request: Request, sid: Id, pid: Id) -> Response:
    def go():
        v = require(request)
        form_of(request, v)
        posts.delete_post(sid, pid, store_of(request), v.caller, now_of(request))
        return see_other(f"/scenes/{sid}#post-{pid}")

    return await run_page(request, go)


@router.post("/scenes/{sid}/settings")
async def scene_settings(request: Request, sid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        hours = str(form.get("turn_hours") or "").strip()
        try:
            turn_seconds = int(float(hours) * 3600) if hours else None
        except (ValueError, OverflowError):
            raise PageError(422, "the deadline is a number of hours") from None
        cast = [x for x in (whole(c, "cast") for c in form.getlist("cast")) if x]
        body = ScenePatch(
            title=str(form.get("title") or ""),
            mode=str(form.get("mode") or "free"),
            cast=cast,
            turn_seconds=turn_seconds,
            on_deadline=str(form.get("on_deadline") or "skip"),
        )
        scenes.patch_scene(sid, body, store_of(request), v.caller, now_of(request))
        return see_other(f"/scenes/{sid}#gm")

    return await run_page(request, go)


@router.post("/scenes/{sid}/close")
async def scene_close(request: Request, sid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        if form.get("confirm") != "yes":
            with store_of(request).reading_scene(sid) as (c, _s):
                if c.role_of(v.caller.id) != "gm":
                    raise Forbidden("only the campaign's GM closes a scene")
            raise PageError(
                422,
                "the scene was not closed: tick the box to confirm",
                "closing reveals the seed and ends the scene for good; nobody can post in it again",
            )
        scenes.close_scene(sid, store_of(request), v.caller, now_of(request))
        return see_other(f"/scenes/{sid}")

    return await run_page(request, go)


@router.post("/scenes/{sid}/fight")
async def scene_fight(request: Request, sid: Id) -> Response:
    def go():
        v = require(request)
        form = form_of(request, v)
        action = str(form.get("action") or "")
        store, now = store_of(request), now_of(request)
        if action == "start":
            sides = [[x for x in (whole(i, "fighter") for i in form.getlist(f"side{n}")) if x] for n in (1, 2)]
            scenes.start_combat(sid, CombatIn(sides=sides), store, v.caller, now)
        elif action == "step":
            scenes.step_combat(sid, store, v.caller, now)
        elif action == "end":
            scenes.end_combat(sid, store, v.caller, now)
        else:
            raise Invalid("choose start, step or end")
        return see_other(f"/scenes/{sid}#fight")

    return await run_page(request, go)
