"""Storymaster: dice, exact odds and rules for five tabletop role-playing systems.

Values are immutable: records, distributions, outcomes, characters and fight
states are frozen; a change returns a new one. Randomness comes only from a
:class:`~storymaster.dice.DiceRng` passed in.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
