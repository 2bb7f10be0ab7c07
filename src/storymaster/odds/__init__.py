"""Exact odds: distributions of dice expressions, on icepool, cached."""

from .distribution import Distribution, distribution, to_icepool, truncated_mass

__all__ = ["Distribution", "distribution", "to_icepool", "truncated_mass"]
