"""MkDocs hooks for the Storymaster site (mkdocs.yml: ``hooks``).

The home page is the README itself, so the quick start is written (and tested, by
tests/test_readme.py) once. Its links are relative to the repository root; on the site they
are rewritten: ``docs/x.md`` becomes ``x.md`` and links to folders outside ``docs/``
(``examples/``) become their name, since the site has no page for them.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
README = ROOT / "README.md"
LINK = re.compile(r"(!?)\[([^\]]*)\]\((?!https?://|#|mailto:)([^)\s]+)\)")


def readme_for_site(text: str) -> str:
    """The README with its repository-relative links made relative to the docs directory."""

    def fix(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        page = target.removeprefix("docs/")
        if target.startswith("docs/") and (ROOT / "docs" / page.split("#")[0]).is_file():
            return f"{bang}[{label}]({page})"
        # a file or folder outside docs/ (examples/, src/): not a page of the site, so its name in plain text
        return f"{label} (`{target}` in the repository)" if not bang else ""

    return LINK.sub(fix, text)


def on_page_read_source(page, config):  # MkDocs passes both; the config is not needed
    if page.file.src_uri == "index.md":
        return readme_for_site(README.read_text(encoding="utf-8"))
    return None
