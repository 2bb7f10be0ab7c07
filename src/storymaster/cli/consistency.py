"""The consistency table of docs/cli.md: for each shared concept, each system's command and flags.

Made from the command tree itself (never typed by hand), so a test can compare it with the page
and fail when a system drifts: a shared command missing, or one of the shared flags gone.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CHANGE_FLAGS", "CONCEPTS", "consistency_markdown", "drift", "system_commands"]

#: each shared command, with the flags every system's version of it takes
CONCEPTS: dict[str, tuple[str, ...]] = {
    "sheet": ("--house-rules", "--json"),
    "new": ("-o/--out", "--house-rules", "--json"),
    "schema": ("--json",),
    "house-rules": ("--json",),
    "check": ("-c/--character", "--set", "--difficulty", "--seed", "--house-rules", "--allow-illegal", "--json"),
    "checks": ("-c/--character", "--house-rules", "--allow-illegal", "--json"),
    "odds": ("-c/--character", "--set", "--difficulty", "--plot", "--house-rules", "--allow-illegal", "--json"),
    "fight": (
        "--vs",
        "--state",
        "--save-state",
        "--rounds",
        "--seed",
        "--house-rules",
        "--allow-illegal",
        "--json",
    ),
    "forecast": (
        "--vs",
        "--state",
        "--method",
        "--samples",
        "--seed",
        "--plot",
        "--house-rules",
        "--allow-illegal",
        "--json",
    ),
}

#: the flags of every command that changes a character file
CHANGE_FLAGS: tuple[str, ...] = ("-o/--out", "--in-place", "--allow-illegal", "--json")


def system_commands(name: str) -> Any:
    """The loaded command group of one system's sub-app (as ``storymaster NAME`` runs it)."""
    import typer.main

    from .app import app

    root: Any = typer.main.get_command(app)
    ctx = type("Ctx", (), {"meta": {}, "obj": None})()
    return root.get_command(ctx, name)


def _visible(param: Any) -> list[str]:
    hidden = set(getattr(param, "hidden_aliases", ()))
    return [o for o in [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())] if o not in hidden]


def _flags(command: Any) -> set[str]:
    return {o for p in command.params for o in getattr(p, "opts", ())}


def _has(command: Any, flag: str) -> bool:
    return all(f in _flags(command) for f in flag.split("/"))


def _leaves(group: Any, prefix: str = "") -> dict[str, Any]:
    out = {}
    for name, cmd in getattr(group, "commands", {}).items():
        if hasattr(cmd, "commands"):
            out.update(_leaves(cmd, f"{prefix}{name} "))
        else:
            out[prefix + name] = cmd
    return out


def drift(systems: list[str]) -> list[str]:
    """Every way a system's CLI departs from the shared shape (empty when none does)."""
    problems = []
    for system in systems:
        group = system_commands(system)
        for concept, flags in CONCEPTS.items():
            cmd = group.commands.get(concept)
            if cmd is None:
                problems.append(f"{system}: no '{concept}' command")
                continue
            problems += [f"{system} {concept}: no {f}" for f in flags if not _has(cmd, f)]
        for name, cmd in _leaves(group).items():
            if _has(cmd, "--in-place"):
                problems += [f"{system} {name}: no {f}" for f in CHANGE_FLAGS if not _has(cmd, f)]
    return problems


def _origin(command: Any) -> Any:
    """The function behind a command (Typer wraps it)."""
    fn = command.callback
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return fn


def _cell(group: Any, concept: str) -> str:
    cmd = group.commands.get(concept)
    if cmd is None:
        return "(missing)"
    same = sorted(n for n, c in group.commands.items() if n != concept and _origin(c) is _origin(cmd))
    text = f"`{concept}`" + (f" (book: {', '.join(f'`{n}`' for n in same)})" if same else "")
    for p in cmd.params:
        if "--difficulty" in getattr(p, "opts", ()):
            book = [o for o in _visible(p) if o != "--difficulty"]
            if book:
                text += f"; `--difficulty` = {', '.join(f'`{b}`' for b in book)}"
    return text


def consistency_markdown(systems: list[str]) -> str:
    """The tables of docs/cli.md, as Markdown."""
    groups = {s: system_commands(s) for s in systems}
    lines = [
        "| concept | flags in every system | " + " | ".join(systems) + " |",
        "|---|---|" + "---|" * len(systems),
    ]
    for concept, flags in CONCEPTS.items():
        row = [f"**{concept}**", " ".join(f"`{f}`" for f in flags)]
        row += [_cell(groups[s], concept) for s in systems]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "Commands that change a character (each takes " + ", ".join(f"`{f}`" for f in CHANGE_FLAGS) + "):",
        "",
        "| system | commands |",
        "|---|---|",
    ]
    for s in systems:
        changing = sorted(n for n, c in _leaves(groups[s]).items() if _has(c, "--in-place"))
        lines.append(f"| {s} | " + ", ".join(f"`{n}`" for n in changing) + " |")
    return "\n".join(lines) + "\n"
