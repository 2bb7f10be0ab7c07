"""What the BLYSS fight tests share: an engine that takes stat blocks built in code, and a quick fighter."""

from __future__ import annotations

from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import BlyssCombat


class CodeBuiltEngine(BlyssCombat):
    """Stat blocks built in code to exercise one rule: the SM allows what creation would refuse."""

    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = CodeBuiltEngine()


def ch(
    name: str, weapon: Weapon | None = None, *, armour: tuple[Armour, ...] = (), skill: int = 3, **attrs: int
) -> Character:
    """Armed Combat ``skill``, Ranged and Unarmed Combat 2, one weapon (or none) and the armour given."""
    traits = (
        Trait(name="Armed Combat", rank=skill),
        Trait(name="Ranged Combat", rank=2),
        Trait(name="Unarmed Combat", rank=2),
    )
    return Character(
        name=name, attributes=Attributes(**attrs), traits=traits, weapons=(weapon,) if weapon else (), armour=armour
    )
