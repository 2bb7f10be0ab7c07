"""Imported once by the compute pool's fork server: every installed rule system loaded before any worker forks."""

from __future__ import annotations

from .jobs import warm

warm()
