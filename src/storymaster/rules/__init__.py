"""The system-neutral rules layer: the protocol every system implements and the registry."""

from .base import RuleSystemBase, generic_sections
from .catalogue import CheckEntry, CheckKind, entry_key, find_entry
from .fight import Fight, side_label
from .files import load_document, load_model, parse_document, validate_data
from .models import Check, HouseRules, Model, describe_house_rules
from .outcome import Outcome, OutcomeOdds
from .protocol import CombatantStatus, CombatEngine, Event, FightTracker, RuleSystem
from .registry import SYSTEMS_GROUP, all_systems, get_system, load_failures
from .sheet import Sheet, SheetSection, SheetValue, section, value

__all__ = [
    "SYSTEMS_GROUP",
    "Check",
    "CheckEntry",
    "CheckKind",
    "CombatEngine",
    "CombatantStatus",
    "Event",
    "Fight",
    "FightTracker",
    "HouseRules",
    "Model",
    "Outcome",
    "OutcomeOdds",
    "RuleSystem",
    "RuleSystemBase",
    "Sheet",
    "SheetSection",
    "SheetValue",
    "all_systems",
    "describe_house_rules",
    "entry_key",
    "find_entry",
    "generic_sections",
    "get_system",
    "load_document",
    "load_failures",
    "load_model",
    "parse_document",
    "section",
    "side_label",
    "validate_data",
    "value",
]
