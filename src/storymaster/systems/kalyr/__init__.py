"""The Kalyr RPG, chapter 3 (Playing the Game): the 4dF Trait Ladder with exact odds, simple and
group contests, three damage tracks, detailed contests, Fudge points and advancement.

The character-creation chapter is missing; the character is modelled from what chapter 3 uses
(see docs/systems/kalyr.md). Rulings on the gaps are in docs/rulings/kalyr.md.
"""

from .system import SYSTEM, KalyrSystem

__all__ = ["SYSTEM", "KalyrSystem"]
