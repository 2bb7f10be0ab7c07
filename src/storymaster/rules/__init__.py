"""The system-neutral rules layer: the protocol every system implements and the registry."""

from .files import load_document, load_model, parse_document, validate_data
from .models import Check, HouseRules, Model, describe_house_rules
from .outcome import Outcome, OutcomeOdds
from .protocol import CombatantStatus, CombatEngine, Event, FightTracker, RuleSystem
from .registry import SYSTEMS_GROUP, all_systems, get_system, load_failures

__all__ = [
    "SYSTEMS_GROUP",
    "Check",
    "CombatEngine",
    "CombatantStatus",
    "Event",
    "FightTracker",
    "HouseRules",
    "Model",
    "Outcome",
    "OutcomeOdds",
    "RuleSystem",
    "all_systems",
    "describe_house_rules",
    "get_system",
    "load_document",
    "load_failures",
    "load_model",
    "parse_document",
    "validate_data",
]
