"""Presentation of structured rules data, for every front end: no rules here, no I/O, no framework.

``card_html(sheet)`` lays any system's :class:`~storymaster.rules.Sheet` out as a printable card
(a page of boxed sections, like B.U.M.'s Appendix B card); ``card_png(sheet)`` draws the same
boxes as an image (needs matplotlib). The CLI and the web both use them; neither needs to know
which system a sheet came from.
"""

from .card import card_html, card_png, sheet_text

__all__ = ["card_html", "card_png", "sheet_text"]
