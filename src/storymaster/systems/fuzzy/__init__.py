"""A Loose and Fuzzy Game System (Tom deMayo, 2003) on Storymaster's plugin protocol.

Nd6 abilities rated 1..5 (or more), two coloured dice for criticals, an
exploding bonus die, Luck and Unluck from a campaign baseline, experience, and
an Advantage Point combat system. ``SYSTEM`` is the registered entry point.
"""

from .system import SYSTEM, FuzzySystem

__all__ = ["SYSTEM", "FuzzySystem"]
