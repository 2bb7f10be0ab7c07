"""Every screenshot the README links exists (the browser test writes them to docs/screenshots/)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_screenshot_links_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\((docs/screenshots/[^)\s]+)\)", readme))
    assert len(links) >= 16, "the README links the main pages at desktop and phone widths"
    missing = sorted(link for link in links if not (ROOT / link).is_file())
    assert not missing, f"README links screenshots that do not exist: {missing}"
    for label in ("desktop", "phone"):
        assert any(label in link for link in links)


def test_docs_link_the_screenshots_too():
    doc = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    for link in re.findall(r"\((screenshots/[^)\s]+)\)", doc):
        assert (ROOT / "docs" / link).is_file(), link
