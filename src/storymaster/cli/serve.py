"""``storymaster serve`` (the table server) and ``storymaster verify`` (check an exported log offline)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputFileError, StorymasterError
from .vocab import JsonOpt

__all__ = ["serve_cmd", "verify_cmd"]


def serve_cmd(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(help="SQLite file (or a database URL). Default: DATABASE_URL, else a file in your data folder."),
    ] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Seed a demo campaign per installed system.")] = False,
    workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes.")] = 1,
    smtp: Annotated[str | None, typer.Option(help="SMTP server HOST:PORT for e-mail digests.")] = None,
    digest_every: Annotated[
        int, typer.Option(min=0, help="Send e-mail digests every N seconds (0: only on request).")
    ] = 0,
    public_url: Annotated[
        str | None,
        typer.Option(help="The address players use (e.g. https://table.example); env STORYMASTER_PUBLIC_URL."),
    ] = None,
    secure_cookies: Annotated[
        bool | None,
        typer.Option(
            "--secure-cookies/--no-secure-cookies",
            help="Mark cookies Secure (HTTPS only). Default: on when the public URL is https; "
            "env STORYMASTER_SECURE_COOKIES.",
        ),
    ] = None,
    api_docs: Annotated[
        bool, typer.Option("--api-docs", help="Serve the interactive API docs at /docs (loads a script from a CDN).")
    ] = False,
) -> None:
    """Run the play-by-post table server (JSON API; OpenAPI document at /openapi.json)."""
    from .output import console

    try:
        import uvicorn

        from ..store import make_engine, migrate, resolve_url
        from ..store.repo import Store
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise StorymasterError(
            f"the server needs the 'server' extra ({exc.name} is missing)", hint="pip install 'storymaster[server]'"
        ) from None
    url = resolve_url(database)
    engine = make_engine(url)
    migrate(engine)
    demo_lines: list[str] = []
    if demo:
        from datetime import UTC, datetime

        from ..rules import all_systems
        from ..web.demo import DEMO_USERS, seed_demo

        seeded = seed_demo(Store(engine), datetime.now(UTC))
        if not all_systems():
            demo_lines = [
                "No rule systems are installed, so there are no demo campaigns.",
                "(see: storymaster systems)",
            ]
        else:
            demo_lines = [
                f"Demo campaigns: {', '.join(seeded) if seeded else 'already there'}",
                "Demo accounts (name, password):",
            ]
            wn = max(len(n) for n, _, _ in DEMO_USERS)
            wp = max(len(p) for _, p, _ in DEMO_USERS)
            demo_lines += [f"  {n:<{wn}}  {p:<{wp}}  {what}" for n, p, what in DEMO_USERS]
    from ..web.signing import load_signer

    key = load_signer(Store(engine)).published()
    engine.dispose()
    smtp_host, _, smtp_port = (smtp or "").partition(":")
    env = {
        "STORYMASTER_DATABASE_URL": url,
        "STORYMASTER_SMTP_HOST": smtp_host,
        "STORYMASTER_SMTP_PORT": smtp_port or "25",
        "STORYMASTER_DIGEST_EVERY": str(digest_every),
        "STORYMASTER_BASE_URL": f"http://{host}:{port}",
        "STORYMASTER_MIGRATE": "0",
        "STORYMASTER_API_DOCS": "1" if api_docs else "",
    }
    if public_url:
        env["STORYMASTER_PUBLIC_URL"] = public_url
    if secure_cookies is not None:
        env["STORYMASTER_SECURE_COOKIES"] = "1" if secure_cookies else "0"
    os.environ.update(env)
    shown = url if url.startswith("sqlite") else url.split("@")[-1]
    docs = "/docs" if api_docs else "/openapi.json"
    # short lines (the address and the demo accounts never wrap at 80 columns), each printed whole
    lines = [f"Storymaster table: http://{host}:{port}/", *demo_lines, f"API: {docs}", f"Database: {shown}"]
    lines += [
        f"Signing key {key['id']} (Ed25519, at /.well-known/storymaster-key):",
        f"  {key['public']}",
        "  exports and log heads are signed with it",
    ]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    uvicorn.run(
        "storymaster.web.factory:from_env", factory=True, host=host, port=port, workers=workers, log_level="warning"
    )


def verify_cmd(
    export: Annotated[Path, typer.Argument(help="A table export (JSON) downloaded from /api/scenes/{id}/export.json.")],
    key: Annotated[
        str | None,
        typer.Option(
            help="The table's public key (from /.well-known/storymaster-key): the export must be signed by it."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an exported log offline: chain, signatures, commitments, every roll replayed, the story against the log."""
    from ..play.verify import verify_text
    from .output import console, print_json

    try:
        text = export.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError(f"{export}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(f"{export}: cannot be read ({exc})") from None
    report = verify_text(text, key=key, source=str(export))
    if as_json:
        print_json(report)
        return
    for log in report["logs"]:
        seed = (
            "seed revealed and matches its commitment"
            if log["seed_revealed"]
            else "seed not yet revealed (rolls checked once the scene closes)"
        )
        extra = (
            f", {log['redacted_entries']} entries and {log['rolls_hidden']} rolls not yours to read"
            if log["redacted_entries"] or log["rolls_hidden"]
            else ""
        )
        console.print(
            f"{log['log']}: {log['entries']} entries, chain intact; {seed}; {log['rolls_replayed']} rolls "
            f"replayed{extra}"
        )
    if report.get("warning"):
        console.print(f"warning: {report['warning']}")
    if report["signed"]:
        how = "the key you gave" if key else "compare it with the table's /.well-known/storymaster-key"
        console.print(f"signed by key {report['key']} ({how}); the story matches the log")
    console.print("verified")
