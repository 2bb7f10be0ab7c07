"""Mutation testing, one module at a time, bounded in time (issue 14): `make mutation`.

A fork server over cosmic-ray's mutation operators (cosmic-ray only enumerates and applies the mutations;
it does not run anything). One process imports the code and the tests once, runs the module's tests once
under a line tracer (which test executes which line), then judges each mutant in a forked child:

* the mutated function's new code object is put in place of the old one (``function.__code__``, so every
  ``from x import f`` elsewhere sees it too; lru caches are emptied before forking);
* a mutant outside any function body (module level, class bodies, decorators, default values) is judged in
  a child that drops every ``storymaster`` and test module and imports them again with the mutated source;
* the child runs, in-process (``pytest.main``, ``-x``), only the tests that executed the mutated statement,
  fastest first, and its exit code is the verdict: 1 killed, 0 survived; a child past its time limit is
  killed and counted as killed (the mutant made the tests hang). A mutant no test executes survived.

Mutants are judged in a random order fixed per module (seeded by the module's name), so a run stopped by its
time budget has judged a uniformly random sample of the module's mutants: the report gives the score with a
95% interval then. Results are kept in .mutation/<module>/results.jsonl: run again and it goes on; change
the module's source and it starts afresh (the mutants no longer apply); change its tests and the line map is
made again (``--recheck-survivors`` reopens the survivors; the next run judges them again).

    .venv/bin/python tools/mutation.py src/storymaster/systems/philsys/damage.py --budget 600
    .venv/bin/python tools/mutation.py --report            # the table of every module run so far
    .venv/bin/python tools/mutation.py MODULE --survivors  # each surviving mutant, as a diff

Score = killed / (judged - equivalent). Mutants judged equivalent (no test could tell them from the
original) are listed, with the reason, in tools/mutation-equivalent.txt as
``module:line:operator:occurrence  # why``.

Left out (they multiply the count without telling more): replacing an arithmetic operator by a bitwise,
shift, power or modulo one; mutants in a function's parameter or return annotations (never evaluated: the
modules use ``from __future__ import annotations``). See /work/notes/MUTATION.md for the how-to.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import hashlib
import importlib.abc
import importlib.util
import json
import math
import os
import random
import re
import signal
import sys
import time
import types
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATE = Path(os.environ.get("MUTATION_STATE", ROOT / ".mutation"))  # a run from a snapshot keeps results here
EQUIVALENT = ROOT / "tools" / "mutation-equivalent.txt"

_SYSTEM_TESTS = {
    # the system's tests that run in-process on one core (the table's web tests and the CLI's are left out: the
    # CLI's tests call the same functions, the web tests need a server)
    "blyss": [
        "tests/systems/blyss/test_checks.py",
        "tests/systems/blyss/test_living.py",
        "tests/systems/blyss/test_living_edges.py",
        "tests/systems/blyss/test_living_low3.py",
        "tests/systems/blyss/test_round_twins.py",
        "tests/systems/blyss/test_combat.py",
        "tests/systems/blyss/test_scale_costs.py",
        "tests/systems/blyss/test_character.py",
        "tests/systems/blyss/test_tracker.py",
        "tests/systems/blyss/test_advancement.py",
    ],
    "philsys": [
        "tests/systems/philsys/test_damage_rules.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_check_texts.py",
        "tests/systems/philsys/test_odds.py",
        "tests/systems/philsys/test_golden.py",
        "tests/systems/philsys/test_combat.py",
        "tests/systems/philsys/test_character.py",
        "tests/systems/philsys/test_system.py",
        "tests/systems/philsys/test_tracker.py",
        "tests/systems/philsys/test_advancement.py",
    ],
    "kalyr": [
        "tests/systems/kalyr/test_damage_and_healing.py",
        "tests/systems/kalyr/test_damage_low3.py",
        "tests/systems/kalyr/test_odds.py",
        "tests/systems/kalyr/test_golden_examples.py",
        "tests/systems/kalyr/test_combat.py",
        "tests/systems/kalyr/test_abilities_and_modifiers.py",
        "tests/systems/kalyr/test_choices_and_refusals.py",
        "tests/systems/kalyr/test_system_and_character.py",
        "tests/systems/kalyr/test_protocol.py",
        "tests/systems/kalyr/test_tracker.py",
        "tests/systems/kalyr/test_fudge_and_advancement.py",
    ],
    "bum": [
        "tests/systems/bum/test_checks.py",
        "tests/systems/bum/test_check_texts.py",
        "tests/systems/bum/test_combat.py",
        "tests/systems/bum/test_character.py",
        "tests/systems/bum/test_hazards.py",
        "tests/systems/bum/test_system.py",
        "tests/systems/bum/test_tracker.py",
        "tests/systems/bum/test_advancement.py",
    ],
    "fuzzy": [
        "tests/systems/fuzzy/test_checks.py",
        "tests/systems/fuzzy/test_check_texts.py",
        "tests/systems/fuzzy/test_odds.py",
        "tests/systems/fuzzy/test_golden.py",
        "tests/systems/fuzzy/test_combat.py",
        "tests/systems/fuzzy/test_character.py",
        "tests/systems/fuzzy/test_system.py",
        "tests/systems/fuzzy/test_tracker.py",
        "tests/systems/fuzzy/test_advancement.py",
    ],
}

#: the modules of issue 14, in the order a bare `make mutation` runs them
MODULES = [
    *(f"src/storymaster/systems/{s}/checks.py" for s in ("philsys", "kalyr", "bum", "fuzzy", "blyss")),
    "src/storymaster/systems/philsys/damage.py",
    "src/storymaster/systems/kalyr/damage.py",
    "src/storymaster/systems/bum/wounds.py",
    "src/storymaster/systems/kalyr/wounds.py",
    "src/storymaster/systems/blyss/living.py",
    "src/storymaster/play/verify.py",
    *(f"src/storymaster/systems/{s}/combat.py" for s in ("philsys", "kalyr", "bum", "fuzzy", "blyss")),
    *(f"src/storymaster/systems/{s}/forecast.py" for s in ("philsys", "kalyr", "bum", "fuzzy", "blyss")),
]


_BLYSS_FORECAST = "tests/systems/blyss/test_forecast.py::"
_BLYSS_SCREW_UPS = "tests/systems/blyss/test_screw_ups.py::"
_BLYSS_DEPRIVED = "tests/systems/blyss/test_deprivation_in_fights.py::"
_BLYSS_FIGHT_TESTS = [
    "tests/systems/blyss/test_round_events.py",
    "tests/systems/blyss/test_round_scripted.py",
    "tests/systems/blyss/test_combat.py",
    "tests/systems/blyss/test_tracker.py",
    _BLYSS_SCREW_UPS + "test_a_screw_up_drops_the_weapon_and_recovering_it_takes_the_next_round",
    _BLYSS_SCREW_UPS + "test_a_critical_screw_up_loses_the_weapon_for_the_rest_of_the_fight",
    _BLYSS_SCREW_UPS + "test_fists_cannot_be_dropped_and_the_house_rule_none_keeps_the_weapon",
    _BLYSS_SCREW_UPS + "test_exact_forecast_with_screw_ups_worked_by_hand",
    _BLYSS_SCREW_UPS + "test_a_hit_the_armour_soaks_still_spoils_an_aim",
    _BLYSS_FORECAST + "test_one_blow_duel_worked_by_hand",
    _BLYSS_FORECAST + "test_one_blow_duel_mid_fight_order_is_kept",
    _BLYSS_FORECAST + "test_a_round_of_the_chain_is_the_engines_round_by_brute_force",
    _BLYSS_DEPRIVED + "test_pool_sizes_match_a_brute_force_for_both_house_rules",
    _BLYSS_DEPRIVED + "test_a_fatigued_and_hungry_fighter_rolls_smaller_pools_in_the_engines_log",
    _BLYSS_DEPRIVED + "test_a_fatigued_duellist_wins_less_by_hand_under_both_house_rules",
    _BLYSS_DEPRIVED + "test_strengths_damage_bonus_falls_only_where_the_statistics_do",
    _BLYSS_DEPRIVED + "test_movement_falls_only_where_the_statistics_do",
    _BLYSS_DEPRIVED + "test_a_dying_fighters_stamina_check_feels_it",
]

_BLYSS_FORECAST_TESTS = [
    "tests/systems/blyss/test_forecast_kernels.py",
    "tests/systems/blyss/test_stand_off.py",
    _BLYSS_FORECAST + "test_one_blow_duel_worked_by_hand",
    _BLYSS_FORECAST + "test_one_blow_duel_mid_fight_order_is_kept",
    _BLYSS_FORECAST + "test_a_round_of_the_chain_is_the_engines_round_by_brute_force",
    _BLYSS_FORECAST + "test_auto_chooses_exact_only_where_it_fits",
    _BLYSS_FORECAST + "test_forecaster_protocol_and_bad_input",
    _BLYSS_FORECAST + "test_exploding_damage",
    _BLYSS_FORECAST + "test_simulation_is_seeded",
    _BLYSS_FORECAST + "test_end_states_are_the_systems_words",
    _BLYSS_SCREW_UPS + "test_exact_forecast_with_screw_ups_worked_by_hand",
    _BLYSS_DEPRIVED + "test_the_simulation_and_the_chain_agree_where_strength_matters",
    _BLYSS_DEPRIVED + "test_the_simulation_feels_the_deprivation_too",
    _BLYSS_DEPRIVED + "test_a_fatigued_duellist_wins_less_by_hand_under_both_house_rules",
    "tests/systems/blyss/test_equivalence_audit.py",
]

_PHILSYS_FORECAST = "tests/systems/philsys/test_forecast.py::"
#: test_forecast.py's tests under a second or so each (the file takes 1.5-3.5 min: its engine runs and big duels)
_PHILSYS_FORECAST_FAST = [
    "test_one_hit_duel_by_hand",
    "test_hp_grid_matches_brute_force",
    "test_exact_duel_with_heal_and_tech_matches_brute_force",
    "test_exact_refused_with_a_reason",
    "test_finished_fight",
    "test_exact_from_a_saved_state_with_a_lost_turn_agrees_with_engine",
    "test_mid_fight_state_agrees_with_engine",
    *(f"test_random_duels_exact_agrees_with_simulation[{seed}]" for seed in (2, 4, 7, 17, 21)),
]

#: modules judged by a narrower set than their system's tests: the files that exercise the module (a mutant
#: is judged by those of them that executed its statement, so a narrower set mostly shortens the line map)
TESTS: dict[str, list[str]] = {
    "src/storymaster/systems/fuzzy/combat.py": [
        "tests/systems/fuzzy/test_round.py",
        "tests/systems/fuzzy/test_combat.py",
        "tests/systems/fuzzy/test_combat_edges.py",
        "tests/systems/fuzzy/test_golden.py",
        "tests/systems/fuzzy/test_forecast.py",
        "tests/systems/fuzzy/test_vectorised.py",
    ],
    "src/storymaster/systems/fuzzy/forecast.py": [
        "tests/systems/fuzzy/test_forecast_exact.py",
        "tests/systems/fuzzy/test_forecast.py",
        "tests/systems/fuzzy/test_vectorised.py",
        "tests/systems/fuzzy/test_round.py",
    ],
    # the array turn: against the round's own turn with the same dice (test_turn_twin.py), the rules' twins, and
    # the simulation against exact values (test_forecast_kernels.py); test_forecast.py is left out (1.5-3.5 min)
    "src/storymaster/systems/philsys/twins.py": [
        "tests/systems/philsys/test_turn_twin.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_forecast_kernels.py",
        "tests/systems/philsys/test_equivalence_audit.py",
    ],
    # the Philsys fight: scripted rounds (test_round.py) are the cheapest killers; test_forecast.py is left out
    # (3.5 min: each survivor would run it), the exact chain against the round enumerated is in test_round.py
    "src/storymaster/systems/philsys/combat.py": [
        "tests/systems/philsys/test_round.py",
        "tests/systems/philsys/test_fight_edges.py",
        "tests/systems/philsys/test_combat.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_tracker.py",
        "tests/systems/philsys/test_golden.py",
        "tests/systems/philsys/test_system.py",
    ],
    "src/storymaster/systems/philsys/round.py": [
        "tests/systems/philsys/test_round.py",
        "tests/systems/philsys/test_fight_edges.py",
        "tests/systems/philsys/test_combat.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_golden.py",
        "tests/systems/philsys/test_turn_twin.py",
    ],
    # B.U.M.: the engine (combat.py), the round stated once (rounds.py), its vectorised twins and the forecast
    "src/storymaster/systems/bum/combat.py": [
        "tests/systems/bum/test_combat.py",
        "tests/systems/bum/test_combat_edges.py",
        "tests/systems/bum/test_round.py",
        "tests/systems/bum/test_tracker.py",
    ],
    "src/storymaster/systems/bum/rounds.py": [
        "tests/systems/bum/test_round.py",
        "tests/systems/bum/test_round_edges.py",
        "tests/systems/bum/test_combat.py",
        "tests/systems/bum/test_combat_edges.py",
        "tests/systems/bum/test_twins.py",
        "tests/systems/bum/test_equivalence_audit.py",
    ],
    "src/storymaster/systems/bum/twins.py": [
        "tests/systems/bum/test_twins.py",
        "tests/systems/bum/test_equivalence_audit.py",
    ],
    # test_forecast_engine.py is left out of these lists (600 engine fights a scenario: each survivor would run it)
    "src/storymaster/systems/bum/forecast.py": [
        "tests/systems/bum/test_forecast.py",
        "tests/systems/bum/test_forecast_random.py",
        "tests/systems/bum/test_forecast_edges.py",
    ],
    # BLYSS's round (round.py) and its engine (combat.py): scripted rounds and the round's events, the engine's
    # fights, and the exact chain's hand-worked duels and brute-force round; test_screw_ups.py's engine-vs-exact-
    # vs-simulation test (150 s under load) and test_forecast.py's CLI, guide and sampled agreements are left out
    # round.py also holds the rule twins the simulation reads (attack_td, aim_td, defence_of, covering_piece, ...)
    # and the stand-off check: their tests (~13 s together) are in its list
    "src/storymaster/systems/blyss/round.py": [
        *_BLYSS_FIGHT_TESTS,
        "tests/systems/blyss/test_stand_off.py",
        "tests/systems/blyss/test_round_twins.py",
        "tests/systems/blyss/test_round_edges.py",
        "tests/systems/blyss/test_equivalence_audit.py",
    ],
    "src/storymaster/systems/blyss/combat.py": _BLYSS_FIGHT_TESTS,
    # the BLYSS forecast: fast killers only (mut-bfc): the simulation's round and fights and the exact chain against
    # the engine's round enumerated (test_forecast_kernels.py), the stand-offs, and by node id the hand-worked duels
    # and brute-force round; test_forecast.py's engine, CLI, guide and 40,000-fight agreements (15-43 s each) and
    # test_screw_ups.py's engine-vs-exact-vs-simulation test (80-150 s) are left out: each survivor would run them
    "src/storymaster/systems/blyss/forecast.py": _BLYSS_FORECAST_TESTS,
    "src/storymaster/systems/blyss/vectorised.py": [
        "tests/systems/blyss/test_round_twins.py",
        *_BLYSS_FORECAST_TESTS,
    ],
    # the Philsys forecast: the kernels' tiny duels by hand and brute force, the seeded simulation against exact
    # values (test_forecast_kernels.py, ~6 s), the chain against the round enumerated state by state (test_round.py),
    # the end-code twin, the CLI's forecasts, test_forecast.py's quick tests (the file takes 1.5-3.5 min)
    "src/storymaster/systems/philsys/forecast.py": [
        "tests/systems/philsys/test_forecast_kernels.py",
        "tests/systems/philsys/test_round.py",
        "tests/systems/philsys/test_rule_twins.py",
        "tests/systems/philsys/test_forecast_cli.py",
        "tests/systems/philsys/test_equivalence_audit.py",
        *(_PHILSYS_FORECAST + t for t in _PHILSYS_FORECAST_FAST),
    ],
    "src/storymaster/systems/fuzzy/vectorised.py": [
        # the twins against their scalar rules, and the simulation against exact chains (test_forecast.py's
        # engine and CLI runs are left out: they make the line map 15 minutes at this machine's load)
        "tests/systems/fuzzy/test_vectorised.py",
        "tests/systems/fuzzy/test_forecast_exact.py",
    ],
    # Kalyr: the checks (dice, odds, words, group contests, Fudge shifts) and the round's dice events
    "src/storymaster/systems/kalyr/checks.py": [
        "tests/systems/kalyr/test_odds.py",
        "tests/systems/kalyr/test_golden_examples.py",
        "tests/systems/kalyr/test_check_texts.py",
        "tests/systems/kalyr/test_fudge_and_advancement.py",
        "tests/systems/kalyr/test_choices_and_refusals.py",
        "tests/systems/kalyr/test_abilities_and_modifiers.py",
        "tests/systems/kalyr/test_rule_twins.py",
    ],
    # the engine's glue around the round: scripted rounds (test_combat_edges) are the cheap killers
    "src/storymaster/systems/kalyr/combat.py": [
        "tests/systems/kalyr/test_combat_edges.py",
        "tests/systems/kalyr/test_combat.py",
        "tests/systems/kalyr/test_round.py",
    ],
    # the vectorised twins: each against its scalar rule on every input of a small domain
    "src/storymaster/systems/kalyr/twins.py": [
        "tests/systems/kalyr/test_rule_twins.py",
    ],
    # the forecast: its words and tiny fights by hand first, then the chain and the numpy round against the engine
    "src/storymaster/systems/kalyr/forecast.py": [
        "tests/systems/kalyr/test_forecast_words.py",
        "tests/systems/kalyr/test_forecast_edges.py",
        "tests/systems/kalyr/test_forecast.py",
    ],
}


def tests_for(module: str) -> list[str]:
    """The tests for a module: its own list in TESTS, else its system's in-process tests (plus its forecast
    tests for a forecast module)."""
    if module in TESTS:
        return list(TESTS[module])
    parts = Path(module).parts
    if "systems" in parts:
        system = parts[parts.index("systems") + 1]
        extra = [f"tests/systems/{system}/test_forecast.py"] if module.endswith("forecast.py") else []
        return [*_SYSTEM_TESTS.get(system, [f"tests/systems/{system}"]), *extra]
    if module.endswith("play/verify.py"):
        return [
            # test_verify_signed.py: signed exports built in-process by the table's exporter and tampered variants;
            # with it these four run every line in verify.py's functions (but one marked no cover), the signed
            # exports and claimed posts too, which tests/web/test_trust.py reached at ~7 s a mutant (a server)
            "tests/play/test_verify_signed.py",
            "tests/play/test_verify_negative.py",
            "tests/play/test_verify_trust.py",
            "tests/play/test_chain.py",
        ]
    return [f"tests/{parts[2]}"] if len(parts) > 3 else ["tests"]


EXCLUDE_OPERATORS = re.compile(r"core/ReplaceBinaryOperator_\w+_(BitOr|BitAnd|BitXor|LShift|RShift|Pow|Mod)$")


def _slug(module: str) -> str:
    return module.removeprefix("src/storymaster/").removesuffix(".py").replace("/", ".")


def _modname(module: str) -> str:
    return module.removeprefix("src/").removesuffix(".py").replace("/", ".")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _equivalents() -> dict[tuple[str, int, str, int], str]:
    out = {}
    if EQUIVALENT.is_file():
        for line in EQUIVALENT.read_text().splitlines():
            spec, _, why = line.partition("#")
            spec = spec.strip()
            if spec:
                mod, lineno, op, occ = spec.rsplit(":", 3)
                out[(mod, int(lineno), op, int(occ))] = why.strip()
    return out


# ---------------------------------------------------------------------------------------------- the mutants


def _annotation_spans(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where a function's parameter and return annotations are. Class-level annotations are kept: pydantic
    evaluates them."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            notes = [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x]
            for ann in [*notes, node.returns]:
                if ann is not None:
                    spans.append(((ann.lineno, ann.col_offset), (ann.end_lineno, ann.end_col_offset)))
    return spans


def enumerate_mutants(source: str) -> tuple[list[dict], int]:
    """Every mutant of a module's source, as cosmic-ray numbers them (operator, occurrence), and how many
    were left out."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast

    tree = get_ast(source)
    nodes = list(ast_nodes(tree))
    spans = _annotation_spans(ast.parse(source))
    mutants, left_out = [], 0
    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if cls.arguments():
            continue  # operators that need arguments are not used without a configuration (as cosmic-ray does)
        op = cls()
        occurrence = 0
        for node in nodes:
            for start, end in op.mutation_positions(node):
                if EXCLUDE_OPERATORS.match(name) or any(a <= start and end <= b for a, b in spans):
                    left_out += 1
                else:
                    mutants.append({"line": start[0], "col": start[1], "end": end[0], "op": name, "occ": occurrence})
                occurrence += 1
    return mutants, left_out


def mutated_source(source: str, op_name: str, occurrence: int) -> str | None:
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    return mutate_code(source, cosmic_ray.plugins.get_operator(op_name)(), occurrence)


class _Where:
    """Where a mutant sits: the outermost function whose body holds it (its qualname and first line), else
    None; and the lines of the innermost statement holding it (the lines a covering test executes)."""

    def __init__(self, source: str) -> None:
        self.tree = ast.parse(source)
        self.functions: list[tuple[ast.AST, str]] = []  # outermost functions with their qualnames
        self.statements: list[tuple[int, int, int]] = []  # (first line, last header line, depth)
        self._walk(self.tree, "", 0)

    def _walk(self, node: ast.AST, prefix: str, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and prefix is not None:
                self.functions.append((child, prefix + child.name))
                self._walk(child, None, depth + 1)  # type: ignore[arg-type]
                self._statement(child, depth)
                continue
            if isinstance(child, ast.ClassDef) and prefix is not None:
                self._statement(child, depth)
                self._walk(child, prefix + child.name + ".", depth + 1)
                continue
            if isinstance(child, ast.stmt):
                self._statement(child, depth)
            self._walk(child, prefix, depth + 1)

    def _statement(self, st: ast.stmt, depth: int) -> None:
        body = getattr(st, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(st.lineno, body[0].lineno - 1)  # a compound statement: its header only
        else:
            last = st.end_lineno or st.lineno
        self.statements.append((st.lineno, last, depth))

    def function(self, line: int) -> tuple[str, int] | None:
        for fn, qualname in self.functions:
            body0 = fn.body[0]
            if body0.lineno <= line <= (fn.end_lineno or line) and (line > fn.lineno or body0.lineno == fn.lineno):
                if body0.lineno == fn.lineno:  # a one-line def: cannot tell the body from the signature
                    return None
                first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
                return qualname, first
        return None

    def lines(self, line: int, end: int) -> tuple[int, int]:
        best = None
        for first, last, depth in self.statements:
            if first <= line <= last and (best is None or depth > best[2]):
                best = (first, last, depth)
        if best is None:
            return line, end
        return min(best[0], line), max(best[1], end)


# --------------------------------------------------------------------------------------- the line tracer


class _Tracer:
    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.hits: set[tuple[str, int]] = set()

    def _local(self, frame, event, arg):
        if event == "line":
            self.hits.add((frame.f_code.co_filename, frame.f_lineno))
        return self._local

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename in self.files:
            self.hits.add((frame.f_code.co_filename, frame.f_lineno))
            return self._local
        return None

    @contextlib.contextmanager
    def tracing(self):
        import threading

        self.hits = set()
        sys.settrace(self)
        threading.settrace(self)
        try:
            yield self.hits
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]


class _CoveragePlugin:
    """Which test executed which line of the traced files, and how long each test took."""

    def __init__(self, tracer: _Tracer, caches: list | None = None) -> None:
        self.tracer = tracer
        self.caches = caches or []  # the traced module's lru caches, emptied before each test (see below)
        self.lines: dict[tuple[str, int], set[str]] = defaultdict(set)
        self.seconds: dict[str, float] = {}
        self.failed: list[str] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # a cached function's body runs only in the first test that calls it: without emptying its cache, the
        # later tests would not be listed as executing it, and its mutants would be judged by too few tests
        for cache in self.caches:
            cache.cache_clear()
        t0 = time.perf_counter()
        with self.tracer.tracing() as hits:
            outcome = yield
        self.seconds[item.nodeid] = time.perf_counter() - t0
        for hit in hits:
            self.lines[hit].add(item.nodeid)
        return outcome

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed.append(report.nodeid)


# ------------------------------------------------------------------------------------------- the server


class _MutatedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, name: str, path: str, source: str) -> None:
        self.name, self.path, self.source = name, path, source

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            return importlib.util.spec_from_file_location(fullname, self.path, loader=self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(self.source, self.path, "exec"), module.__dict__)


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


#: plugins a child does without: the last two run five full garbage collections per session (0.8 s a mutant)
_CHILD_PLUGINS_OFF = [
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "-p",
    "no:unraisableexception",
    "-p",
    "no:threadexception",
]


class Server:
    """One module's mutants judged by forked children of a warmed process."""

    def __init__(self, module: str, verbose: bool = False) -> None:
        self.module = module
        self.path = str(ROOT / module)
        self.name = _modname(module)
        self.tests = tests_for(module)
        self.verbose = verbose
        self.home = STATE / _slug(module)
        self.home.mkdir(parents=True, exist_ok=True)
        self.slow = "slow"

    # -- once per module
    def warm(self) -> dict[str, object]:
        import pytest

        os.chdir(ROOT)
        sys.path.insert(0, str(ROOT / "src"))
        tracer = _Tracer({self.path})
        with tracer.tracing() as hits:
            module = importlib.import_module(self.name)
        self.import_lines = {line for _, line in hits}
        self.live = module
        caches = [
            obj
            for obj in gc.get_objects()
            if type(obj).__name__ == "_lru_cache_wrapper"
            and getattr(getattr(obj, "__wrapped__", None), "__code__", None) is not None
            and obj.__wrapped__.__code__.co_filename == self.path
        ]
        plugin = _CoveragePlugin(tracer, caches)
        t0 = time.monotonic()
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            rc = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *self.tests], plugins=[plugin])
        self.coverage_s = time.monotonic() - t0
        if rc != 0:
            raise SystemExit(f"{self.module}: the tests fail before any mutation ({rc}): {plugin.failed[:5]}")
        self.lines = {line: tests for (_, line), tests in plugin.lines.items()}
        self.seconds = plugin.seconds
        self.users = sorted({t for ts in self.lines.values() for t in ts}, key=lambda t: self.seconds.get(t, 0))
        # the functions of the module, by (qualname, first line), found once (every object holding that code)
        self.functions: dict[tuple[str, int], list[types.FunctionType]] = defaultdict(list)
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType) and obj.__code__.co_filename == self.path:
                self.functions[(obj.__code__.co_qualname, obj.__code__.co_firstlineno)].append(obj)
        # caches filled by the line-map run would hide a mutant from the children: empty them
        for obj in gc.get_objects():
            if type(obj).__name__ == "_lru_cache_wrapper":
                with contextlib.suppress(Exception):
                    obj.cache_clear()  # type: ignore[attr-defined]
        from hypothesis import settings

        settings.register_profile(
            "mutation", parent=settings.get_profile("storymaster"), database=None, derandomize=True
        )
        settings.load_profile("mutation")
        gc.freeze()  # the children share these objects: a collection in a child no longer copies their pages
        self.source = Path(self.path).read_text(encoding="utf-8")
        self.where = _Where(self.source)
        return {"coverage_s": round(self.coverage_s, 1), "tests": len(self.seconds), "users": len(self.users)}

    # -- once per mutant
    def plan(self, m: dict) -> tuple[str, list[str]]:
        """'fast' (swap a function's code) or 'slow' (import again), and the tests to run."""
        fn = self.where.function(m["line"])
        first, last = self.where.lines(m["line"], m["end"])
        if fn is None or any(line in self.import_lines for line in range(first, last + 1)):
            return self.slow, self.users
        tests: set[str] = set()
        for line in range(first, last + 1):
            tests |= self.lines.get(line, set())
        return "fast", sorted(tests, key=lambda t: self.seconds.get(t, 0))

    def _apply_fast(self, mutated: str, m: dict) -> None:
        qualname, first = self.where.function(m["line"])  # type: ignore[misc]
        code = compile(mutated, self.path, "exec", dont_inherit=True, flags=self._flags())
        new = [c for c in _codes(code) if c.co_qualname == qualname and c.co_firstlineno == first]
        live = self.functions.get((qualname, first), [])
        if len(new) != 1 or not live:
            raise RuntimeError(f"cannot place the mutant: {qualname} at {first}: {len(new)} code(s), {len(live)} live")
        for f in live:
            f.__code__ = new[0]

    def _flags(self) -> int:
        import __future__

        return __future__.annotations.compiler_flag

    def _apply_reexec(self, mutated: str) -> None:
        """Run the mutated source in the live module's namespace (new classes, functions and constants), then
        point every name that held one of the module's old objects (``from x import C``) at the new one."""
        module = sys.modules[self.name]
        old = dict(module.__dict__)
        exec(compile(mutated, self.path, "exec", dont_inherit=True, flags=self._flags()), module.__dict__)
        moved = {id(v): (v, module.__dict__[k]) for k, v in old.items() if module.__dict__.get(k, v) is not v}
        tests_dir = str(ROOT / "tests")
        for name, mod in list(sys.modules.items()):
            file = getattr(mod, "__file__", None) or ""
            if mod is module or not (name.startswith("storymaster") or file.startswith(tests_dir)):
                continue
            for k, v in list(vars(mod).items()):
                hit = moved.get(id(v))
                if hit is not None and hit[0] is v:
                    setattr(mod, k, hit[1])

    def _apply_slow(self, mutated: str) -> None:
        tests_dir = str(ROOT / "tests")
        for name, mod in list(sys.modules.items()):
            file = getattr(mod, "__file__", None) or ""
            if name == "storymaster" or name.startswith("storymaster.") or file.startswith(tests_dir):
                del sys.modules[name]
        sys.meta_path.insert(0, _MutatedFinder(self.name, self.path, mutated))

    def judge(self, m: dict | str | None, timeout: float) -> tuple[str, float, int, str]:
        """Run one mutant (None: the unmutated code) in a child: (outcome, seconds, tests run, how)."""
        import pytest

        if m is None or isinstance(m, str):  # the unmutated code, as it is or run again by a slow path
            how, tests, mutated = (m or "none"), self.users, self.source
        else:
            how, tests = self.plan(m)
            mutated = mutated_source(self.source, m["op"], m["occ"]) or ""
            if not mutated:
                return "no-mutation", 0.0, 0, how
            if not _compiles(mutated, self.path):
                return "invalid", 0.0, 0, how  # not Python (e.g. 'a & not b'): no mutant at all
            if not tests:
                return "survived", 0.0, 0, "not executed by any test"
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child
            rc = 99
            try:
                os.setpgid(0, 0)
                null = os.open(os.devnull, os.O_WRONLY)
                if not self.verbose:
                    os.dup2(null, 1)
                    os.dup2(null, 2)
                if how == "fast":
                    self._apply_fast(mutated, m)  # type: ignore[arg-type]
                elif how == "none":
                    pass
                elif how == "slow":
                    self._apply_slow(mutated)
                elif how == "reexec":
                    self._apply_reexec(mutated)
                args = ["-x", "-q", *_CHILD_PLUGINS_OFF, *tests]
                rc = int(pytest.main(args))
            except BaseException as exc:  # a child reports through its exit code only
                with contextlib.suppress(Exception):
                    os.write(2, f"mutation child: {exc!r}\n".encode())
                rc = 98
            finally:
                os._exit(rc)
        deadline = t0 + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout", time.monotonic() - t0, len(tests), how
            time.sleep(0.01)
        secs = time.monotonic() - t0
        code = os.waitstatus_to_exitcode(status)
        outcome = {0: "survived", 1: "killed", 2: "incompetent"}.get(code, f"error {code}")
        return outcome, secs, len(tests), how


# -------------------------------------------------------------------------------------------- sessions


def _load(home: Path) -> dict[str, dict]:
    path = home / "results.jsonl"
    out = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out[r["key"]] = r
    return out


def _key(m: dict) -> str:
    return f"{m['line']}:{m['op']}:{m['occ']}"


def prepare(module: str, fresh: bool) -> tuple[Path, list[dict], int]:
    """The module's mutants (cached per source), in the module's fixed random order."""
    home = STATE / _slug(module)
    source = (ROOT / module).read_bytes()
    digest = _sha(source)
    stamp = home / "source.sha256"
    if fresh or not stamp.is_file() or stamp.read_text() != digest:
        if home.exists():
            for f in home.iterdir():
                if f.is_file():
                    f.unlink()
        home.mkdir(parents=True, exist_ok=True)
        mutants, left_out = enumerate_mutants(source.decode("utf-8"))
        random.Random(module).shuffle(mutants)
        (home / "mutants.json").write_text(json.dumps({"left_out": left_out, "mutants": mutants}))
        stamp.write_text(digest)
        (home / "source.py").write_bytes(source)  # what the mutants were made from (the report reads it)
    data = json.loads((home / "mutants.json").read_text())
    return home, data["mutants"], data["left_out"]


def run(module: str, budget: float, fresh: bool, verbose: bool = False, limit: int | None = None) -> dict:
    t_start = time.monotonic()
    home, mutants, _ = prepare(module, fresh)
    done = _load(home)
    todo = [m for m in mutants if _key(m) not in done]
    # the judged mutants must stay a prefix of the random order (a uniform sample): mutants inside the prefix
    # (survivors reopened by --recheck-survivors) are judged whatever the budget says
    judged_at = [i for i, m in enumerate(mutants) if _key(m) in done]
    prefix = max(judged_at) + 1 if judged_at else 0
    reopened = home / "prefix"  # how far the sample went before --recheck-survivors reopened its survivors
    if reopened.is_file():
        prefix = max(prefix, int(reopened.read_text()))
    must = {_key(m) for m in mutants[:prefix] if _key(m) not in done}
    if limit is not None:
        todo = todo[:limit]
    if not todo:
        return summarise(module)
    server = Server(module, verbose)
    info = server.warm()
    outcome, secs, n, _ = server.judge(None, timeout=max(120.0, 4 * sum(server.seconds.values())))
    if outcome != "survived":
        raise SystemExit(f"{module}: the tests do not pass in a forked child ({outcome}); nothing judged")
    # a mutant outside any function is run again in the live module (fast) when the unmutated source passes
    # the tests that way, else by importing every storymaster and test module again (slow)
    control, csecs, _, _ = server.judge("reexec", timeout=max(120.0, 4 * sum(server.seconds.values())))
    server.slow = "reexec" if control == "survived" else "slow"
    print(
        f"{module}: {len(mutants)} mutants, {len(todo)} to judge; line map {info}; "
        f"forked run of all {n} tests {secs:.1f} s; module run again: {control} ({csecs:.1f} s) -> {server.slow}"
    )
    with (home / "results.jsonl").open("a") as out:
        for m in todo:
            if time.monotonic() - t_start > budget and _key(m) not in must:
                break
            _, tests = server.plan(m)
            limit_s = 30.0 + 3 * sum(server.seconds.get(t, 0.0) for t in tests)
            outcome, secs, n, how = server.judge(m, limit_s)
            row = {"key": _key(m), **m, "outcome": outcome, "secs": round(secs, 2), "tests": n, "how": how}
            out.write(json.dumps(row) + "\n")
            out.flush()
            if verbose:
                print(json.dumps(row))
    return summarise(module)


def recheck_survivors(module: str) -> int:
    home = STATE / _slug(module)
    rows = _load(home)
    # the sample is the prefix of the random order up to the last mutant judged: kept, so that survivors at its
    # end (reopened below) are judged again too, not dropped from the sample
    mutants = json.loads((home / "mutants.json").read_text())["mutants"] if (home / "mutants.json").is_file() else []
    judged_at = [i for i, m in enumerate(mutants) if _key(m) in rows]
    if judged_at:
        old = int((home / "prefix").read_text()) if (home / "prefix").is_file() else 0
        (home / "prefix").write_text(str(max(old, max(judged_at) + 1)))
    # a survivor listed equivalent is kept as judged, not run again: the list says no test can tell it apart, and
    # a survivor runs every covering test (minutes each on a loaded machine)
    eq = _equivalents()
    keep = [r for r in rows.values() if r["outcome"] != "survived" or (module, r["line"], r["op"], r["occ"]) in eq]
    (home / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    return len(rows) - len(keep)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _compiles(source: str, path: str) -> bool:
    import __future__

    try:
        compile(source, path, "exec", dont_inherit=True, flags=__future__.annotations.compiler_flag)
    except SyntaxError:
        return False
    return True


_LIMIT_KEYWORDS = {"ge", "le", "gt", "lt", "min_length", "max_length", "multiple_of"}


def _limit_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the input limits are: the bounds of a pydantic ``Field(ge=..., le=...)``. They are no rule of the
    book and documented nowhere but the source, so no test can take them from elsewhere: their mutants are
    counted apart (``limit``), and the score is given with and without them."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Field":
            for kw in node.keywords:
                if kw.arg in _LIMIT_KEYWORDS:
                    v = kw.value
                    spans.append(((v.lineno, v.col_offset), (v.end_lineno or v.lineno, v.end_col_offset or 0)))
    return spans


def _judged_source(module: str) -> str:
    """The source the module's mutants were made from (the work tree may have moved on since)."""
    kept = STATE / _slug(module) / "source.py"
    return (kept if kept.is_file() else ROOT / module).read_text(encoding="utf-8")


def summarise(module: str) -> dict:
    """Counts for a module. ``score``: killed / (judged - equivalent - limit); ``score_all`` counts the input
    limits' mutants too. ``interval``: a 95% Wilson interval of ``score`` when only a sample is judged."""
    home = STATE / _slug(module)
    if not (home / "mutants.json").is_file():
        return {"module": module}
    data = json.loads((home / "mutants.json").read_text())
    rows = _load(home)
    eq = _equivalents()
    source = _judged_source(module)
    limits = _limit_spans(source)
    c = {"killed": 0, "timeout": 0, "survived": 0, "equivalent": 0, "invalid": 0, "error": 0}
    c |= {"limit_killed": 0, "limit_survived": 0}
    secs = []
    for r in rows.values():
        secs.append(r["secs"])
        o = r["outcome"]
        if o == "error 4" and r["how"] in ("slow", "reexec"):
            o = "incompetent"  # pytest's usage error: a conftest could not import the mutated module
        if o == "error 98" and r["how"] == "reexec":
            o = "incompetent"  # running the mutated module raised (e.g. set / set): it cannot be imported
        if o.startswith("error") or o == "no-mutation":
            mutated = mutated_source(source, r["op"], r["occ"])
            o = "invalid" if mutated is None or not _compiles(mutated, module) else "error"
        if o == "incompetent":
            o = "killed"  # the tests could not even be collected: the module failed to import
        if o == "survived" and (module, r["line"], r["op"], r["occ"]) in eq:
            o = "equivalent"
        if o in ("killed", "timeout", "survived") and any(a <= (r["line"], r["col"]) < b for a, b in limits):
            o = "limit_survived" if o == "survived" else "limit_killed"
        c[o] += 1
    killed = c["killed"] + c["timeout"]
    judged = killed + c["survived"]
    lo, hi = wilson(killed, judged)
    total = len(data["mutants"])
    seen = sum(c.values())
    return {
        "module": module,
        "total": total,
        "left_out": data["left_out"],
        "seen": seen,
        **c,
        "killed_all": killed,
        "score": round(100.0 * killed / judged, 1) if judged else None,
        "score_all": round(100.0 * (killed + c["limit_killed"]) / (judged + c["limit_killed"] + c["limit_survived"]), 1)
        if judged
        else None,
        "interval": None if seen >= total else (round(100 * lo, 1), round(100 * hi, 1)),
        "mean_s": round(sum(secs) / len(secs), 2) if secs else None,
    }


def survivors(module: str) -> None:
    home = STATE / _slug(module)
    source = _judged_source(module)
    eq = _equivalents()
    limits = _limit_spans(source)
    import difflib

    for r in sorted(_load(home).values(), key=lambda r: (r["line"], r["op"], r["occ"])):
        if r["outcome"] != "survived" or (module, r["line"], r["op"], r["occ"]) in eq:
            continue
        limit = " [input limit]" if any(a <= (r["line"], r["col"]) < b for a, b in limits) else ""
        print(f"{module}:{r['line']}:{r['op']}:{r['occ']}  ({r['how']}, {r['tests']} tests){limit}")
        mutated = mutated_source(source, r["op"], r["occ"]) or ""
        diff = difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm="", n=0)
        print("    " + "\n    ".join(list(diff)[3:]))


def report() -> None:
    """A markdown table of every module run so far (docs/benchmarks.md takes it)."""
    print(
        "| module | mutants | judged | killed | survived | equivalent | input limits killed/survived | not Python "
        "| score | with the limits | run |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for module in MODULES + sorted(set(_known()) - set(MODULES)):
        s = summarise(module)
        if "total" not in s or not s["seen"]:
            continue
        stamp = STATE / _slug(module) / "source.sha256"
        name = module.removeprefix("src/storymaster/")
        if stamp.read_text() != _sha((ROOT / module).read_bytes()):
            name += " (run on an earlier version)"
        score = "-" if s["score"] is None else f"{s['score']}%"
        run = (
            "all mutants"
            if s["interval"] is None
            else f"random sample, 95% interval {s['interval'][0]}-{s['interval'][1]}%"
        )
        err = f" ({s['error']} errors)" if s["error"] else ""
        print(
            f"| {name} | {s['total']} | {s['seen']}{err} | {s['killed_all']} "
            f"| {s['survived']} | {s['equivalent']} | {s['limit_killed']}/{s['limit_survived']} | {s['invalid']} "
            f"| {score} | {s['score_all']}% | {run} |"
        )


def _known() -> list[str]:
    out = []
    for stamp in STATE.glob("*/mutants.json"):
        slug = stamp.parent.name
        out.append("src/storymaster/" + slug.replace(".", "/") + ".py")
    return out


def rekey_equivalents(module: str, old_source: str) -> tuple[int, list[str]]:
    """Move the module's entries in the equivalents file from ``old_source`` to the module's current source:
    an entry moves to the one mutant of the same operator whose line and mutated line read as they did."""
    new_source = (ROOT / module).read_text(encoding="utf-8")
    new_mutants, _ = enumerate_mutants(new_source)
    old_mutants, _ = enumerate_mutants(old_source)
    old_lines, new_lines = old_source.splitlines(), new_source.splitlines()
    out, moved, lost = [], 0, []
    for line in EQUIVALENT.read_text().splitlines():
        spec, sep, why = line.partition("#")
        if not spec.strip().startswith(module + ":"):
            out.append(line)
            continue
        _, lineno, op, occ = spec.strip().rsplit(":", 3)
        old_mut = mutated_source(old_source, op, int(occ)) or ""
        want = (old_lines[int(lineno) - 1].strip(), old_mut.splitlines()[int(lineno) - 1].strip() if old_mut else "")

        def same(ms: list[dict], src: str, lines: list[str], op: str = op, want: tuple = want) -> list[dict]:
            found = []
            for m in sorted(ms, key=lambda m: m["occ"]):
                if m["op"] == op and lines[m["line"] - 1].strip() == want[0]:
                    mut = mutated_source(src, op, m["occ"]) or ""
                    if mut and mut.splitlines()[m["line"] - 1].strip() == want[1]:
                        found.append(m)
            return found

        hits, before = same(new_mutants, new_source, new_lines), same(old_mutants, old_source, old_lines)
        rank = [i for i, m in enumerate(before) if m["occ"] == int(occ)]
        if len(hits) == len(before) and rank:  # the same text may occur more than once: keep its rank
            new_spec = f"{module}:{hits[rank[0]]['line']}:{op}:{hits[rank[0]]['occ']}"
            moved += new_spec != spec.strip()
            out.append(f"{new_spec}  {sep}{why}")
        else:
            lost.append(spec.strip())
            out.append(line)
    EQUIVALENT.write_text("\n".join(out) + "\n")
    return moved, lost


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="module paths (default: every module of issue 14, in order)")
    ap.add_argument("--budget", type=float, default=600, help="seconds per module for this run (default 600)")
    ap.add_argument("--limit", type=int, help="judge at most this many mutants per module")
    ap.add_argument("--fresh", action="store_true", help="forget the saved results and start again")
    ap.add_argument(
        "--recheck-survivors",
        action="store_true",
        help="reopen the survivors (after adding tests); the next run judges them",
    )
    ap.add_argument("--report", action="store_true", help="print the table of every module run so far")
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants of the modules")
    ap.add_argument("--verbose", action="store_true", help="one line per mutant; the children's output")
    ap.add_argument("--rekey", metavar="OLD_SOURCE", help="move the module's equivalents from OLD_SOURCE's lines")
    args = ap.parse_args(argv)
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("cosmic-ray is missing: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    if args.report:
        report()
        return 0
    if args.rekey:
        moved, lost = rekey_equivalents(args.modules[0], Path(args.rekey).read_text(encoding="utf-8"))
        print(f"{moved} moved; not found in the new source: {lost}")
        return 0
    modules = args.modules or [m for m in MODULES if (ROOT / m).is_file()]
    for module in modules:
        if not (ROOT / module).is_file():
            print(f"no such module: {module}", file=sys.stderr)
            return 2
    if len(modules) > 1 and not (args.survivors or args.recheck_survivors):
        # one module per process: a warmed process holds one module's line map and patched functions
        import subprocess

        for module in modules:
            extra = (
                [f"--budget={args.budget}"]
                + (["--fresh"] if args.fresh else [])
                + (["--verbose"] if args.verbose else [])
            )
            extra += [f"--limit={args.limit}"] if args.limit else []
            subprocess.run([sys.executable, __file__, module, *extra], check=False)
        return 0
    for module in modules:
        if args.recheck_survivors:
            print(f"{module}: {recheck_survivors(module)} survivor(s) reopened: run the module again to judge them")
            continue
        if args.survivors:
            survivors(module)
            continue
        print(json.dumps(run(module, args.budget, args.fresh, args.verbose, args.limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
