"""The installed rule systems: what a campaign can be played with."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...rules import all_systems, describe_house_rules, get_system, load_failures

router = APIRouter(tags=["systems"])


@router.get("/", include_in_schema=False)
def landing() -> HTMLResponse:
    return HTMLResponse(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Storymaster table</title></head>'
        "<body><h1>Storymaster play-by-post table</h1><p>This server speaks JSON. "
        '<a href="/docs">API documentation</a> · <a href="/openapi.json">OpenAPI document</a> · '
        '<a href="/api/systems">installed rule systems</a></p></body></html>'
    )


@router.get(
    "/.well-known/storymaster-key",
    summary="The table's Ed25519 public key: it signs every log entry's place and every export",
)
async def signing_key(request: Request) -> dict[str, str]:
    return request.app.state.signer.published()


@router.get("/api/health", summary="Liveness")
def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/api/systems", summary="Installed rule systems (and any that failed to load)")
def systems() -> dict[str, Any]:
    return {
        "systems": [
            {"name": s.name, "title": s.title, "version": s.version, "check_types": sorted(s.check_types)}
            for s in all_systems().values()
        ],
        "failed": load_failures(),
    }


@router.get("/api/systems/{name}", summary="A system: house-rule options, check types and the character sheet schema")
def system(name: str) -> dict[str, Any]:
    s = get_system(name[:64])
    return {
        "name": s.name,
        "title": s.title,
        "version": s.version,
        "house_rules": describe_house_rules(s.house_rules_model),
        "check_types": {k: v.model_json_schema() for k, v in s.check_types.items()},
        "character_schema": s.character_model.model_json_schema(),
    }
