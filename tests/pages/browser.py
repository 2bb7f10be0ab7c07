"""A real table server and Debian's Chromium, driven by Playwright (never `playwright install`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from web.servers import REAL_APP, Server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
DOCS_SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


class TableServer(Server):
    """The real table (every installed system) for the browser, live updates polled every second."""

    def __init__(self, database_url: str) -> None:
        super().__init__(database_url, app=REAL_APP, env={"STORYMASTER_SSE_POLL": "1"})


def axe_source() -> str:
    """axe-core's script, from the axe-core-python wheel (PyPI): nothing is fetched at run time."""
    import axe_core_python

    return (Path(axe_core_python.__file__).parent / "axe.min.js").read_text()


def serious_violations(page, axe_js: str) -> list[str]:
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_js)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v.get("impact") in ("serious", "critical")
    ]


def shoot(page, name: str) -> None:
    """Screenshots at desktop and phone widths into artifacts/screenshots/ (every run).

    The committed copies in docs/screenshots/ (linked from the README) are refreshed only by
    `make screenshots` (STORYMASTER_UPDATE_SCREENSHOTS=1), so a test run leaves the tree clean.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    update_docs = os.environ.get("STORYMASTER_UPDATE_SCREENSHOTS") == "1"
    if update_docs:
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    for label, (w, h) in WIDTHS.items():
        page.set_viewport_size({"width": w, "height": h})
        if name == "fight-tracker":
            page.locator("#fight").scroll_into_view_if_needed()
        else:
            page.evaluate("window.scrollTo(0, 0)")
        out = ARTIFACTS / f"{name}-{label}.png"
        page.screenshot(path=str(out), full_page=label == "desktop")
        assert out.stat().st_size > 1000, f"{out} looks empty"
        if update_docs:
            shutil.copyfile(out, DOCS_SHOTS / out.name)
    if before:
        page.set_viewport_size(before)
