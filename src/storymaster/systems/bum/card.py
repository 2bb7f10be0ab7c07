"""Appendix B, Sample Character Cards: the card's boxes as data, and as HTML.

:func:`card` gives every box of the card (what a renderer shows);
:func:`card_html` lays it out like the book's card with a Jinja2 template in
``data/card.html.j2``, :func:`card_png` draws it with matplotlib. No I/O:
callers write the text or bytes where they like.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import jinja2

from .character import (
    STATS,
    BumCharacter,
    armour_bonus,
    attack_total,
    current_hp,
    hit_points,
    melee_defence,
    profile,
    ranged_defence,
    shield_bonus,
    stat_conflicts,
)
from .levels import skill_label, stat_label

__all__ = ["card", "card_html", "card_png", "item_text", "png_rows"]


def _signed(v: int | None) -> str:
    return "" if v is None else f"{v:+d}"


def item_text(item: dict[str, Any]) -> str:
    """One item as the card writes it: 'Suture kit (+1 Medicine)', 'Crossbow bolts x 10'."""
    text = item["name"] + (f" x {item['quantity']}" if item["quantity"] != 1 else "")
    if item["bonus"]:
        text += f" ({item['bonus']}" + (f" {item['applies_to']}" if item["applies_to"] else "") + ")"
    return text


def card(c: BumCharacter) -> dict[str, Any]:
    """Every box of the Appendix B card, with the totals computed (Part Eight step 7)."""
    weapons = []
    totals: dict[str, int | None] = {}
    for slot in ("primary", "ranged", "backup"):
        entry = c.weapons.get(slot)  # type: ignore[arg-type]
        p = profile(c, slot)  # type: ignore[arg-type]
        weapons.append(
            {
                "slot": slot.upper(),
                "name": entry.name if entry else "",
                "attack": _signed(p.attack) if p else "",
                "defence": _signed(p.defence) if p and p.defence else "",
            }
        )
        totals[slot] = attack_total(c, slot) if entry else None  # type: ignore[arg-type]
    a_att, a_def = armour_bonus(c)
    s_att, s_def = shield_bonus(c)
    return {
        "name": c.name,
        "player": c.player,
        "campaign": c.campaign,
        "stats": [{"stat": s, "value": c.stats.get(s), "label": stat_label(s, c.stats.get(s))} for s in STATS],
        "skills": [
            {"name": s.name, "stat": s.stat, "bonus": s.points, "level": skill_label(s.points)} for s in c.skills
        ],
        "weapons": weapons,
        "armour": {
            "name": c.armour.name if c.armour else "",
            "attack": _signed(a_att) if a_att else "",
            "defence": _signed(a_def) if c.armour else "",
        },
        "shield": {
            "name": c.shield.name if c.shield else "",
            "attack": _signed(s_att) if s_att else "",
            "defence": _signed(s_def) if c.shield else "",
        },
        "attack_totals": totals,
        "defence_totals": {"melee": melee_defence(c), "ranged": ranged_defence(c)},
        "wounds": {"max": hit_points(c), "taken": len(c.wounds), "left": current_hp(c)},
        "items": [
            {**row, "text": item_text(row)}
            for row in (
                {
                    "name": i.name,
                    "bonus": _signed(i.bonus) if i.bonus else "",
                    "applies_to": i.applies_to,
                    "quantity": i.quantity,
                }
                for i in c.items
            )
        ],
        "warnings": [str(p) for p in stat_conflicts(c)],
        "banked_skill_points": c.banked_skill_points,
    }


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    return env.from_string(files(__package__).joinpath("data/card.html.j2").read_text(encoding="utf-8"))


def card_html(c: BumCharacter) -> str:
    """The card as a standalone HTML page laid out like Appendix B."""
    data = card(c)
    skills = data["skills"]
    rows = max(4, (len(skills) + 1) // 2)
    pairs = []
    for i in range(rows):
        left = skills[i] if i < len(skills) else None
        right = skills[rows + i] if rows + i < len(skills) else None
        pairs.append((left, right))
    return _template().render(card=data, skill_rows=pairs, stat_rows=data["stats"])


def png_rows(d: dict[str, Any]) -> tuple[list[list[str]], list[list[str]], int]:
    """The PNG card's two tables as rows of cell text, and the index of the first ITEMS row."""
    skills = d["skills"]
    n = max(4, (len(skills) + 1) // 2)
    top = [["STATS", "", "SKILLS/SPELLS", "BONUS", "SKILLS/SPELLS", "BONUS"]]
    for i in range(n):
        st = d["stats"][i] if i < 4 else None
        left = skills[i] if i < len(skills) else None
        right = skills[n + i] if n + i < len(skills) else None
        top.append(
            [
                st["stat"] if st else "",
                str(st["value"]) if st else "",
                left["name"] if left else "",
                str(left["bonus"]) if left else "",
                right["name"] if right else "",
                str(right["bonus"]) if right else "",
            ]
        )
    at, dt = d["attack_totals"], d["defence_totals"]
    wp = d["weapons"]
    fmt = lambda v: "" if v is None else str(v)  # noqa: E731
    bottom = [
        ["WEAPONS", "", "ATTACK", "DEFENSE", "ATTACK TOTALS", "", ""],
        ["PRIMARY", wp[0]["name"], wp[0]["attack"], wp[0]["defence"], "PRIMARY", "RANGED", "BACKUP"],
        [
            "RANGED",
            wp[1]["name"],
            wp[1]["attack"],
            wp[1]["defence"],
            fmt(at["primary"]),
            fmt(at["ranged"]),
            fmt(at["backup"]),
        ],
        ["BACKUP", wp[2]["name"], wp[2]["attack"], wp[2]["defence"], "DEFENSE TOTALS", "", "WOUNDS"],
        [
            "ARMOR",
            d["armour"]["name"],
            d["armour"]["attack"],
            d["armour"]["defence"],
            "MELEE",
            "RANGED",
            "|" * d["wounds"]["taken"],
        ],
        [
            "SHIELD",
            d["shield"]["name"],
            d["shield"]["attack"],
            d["shield"]["defence"],
            str(dt["melee"]),
            str(dt["ranged"]),
            f"of {d['wounds']['max']}",
        ],
    ]
    # one row per item, its whole entry (quantity, bonus, what it helps) written across the row
    first_item = len(bottom)
    for k, i in enumerate(d["items"] or [None]):
        bottom.append(["ITEMS" if k == 0 else "", item_text(i) if i else "", "", "", "", "", ""])
    return top, bottom, first_item


def card_png(c: BumCharacter) -> bytes:
    """The card as a PNG image laid out like Appendix B (needs matplotlib; raises ImportError without it)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = card(c)
    top, bottom, first_item = png_rows(d)
    row_in = 0.2  # inches per table row at this font size
    height = 0.85 + row_in * (len(top) + len(bottom)) + 0.35
    fig = plt.figure(figsize=(6.5, height))
    for k, label in enumerate(("NAME", "PLAYER", "CAMPAIGN")):
        fig.text(0.05, 1 - (0.22 + 0.2 * k) / height, f"{label}: {d[label.lower()]}", fontsize=10, style="italic")
    top_h, bottom_h = row_in * len(top) / height, row_in * len(bottom) / height
    ax1 = fig.add_axes((0.03, 1 - 0.85 / height - top_h, 0.94, top_h))
    ax2 = fig.add_axes((0.03, 1 - 0.85 / height - top_h - 0.2 / height - bottom_h, 0.94, bottom_h))
    widths = {id(top): [0.12, 0.06, 0.3, 0.1, 0.3, 0.1], id(bottom): [0.1, 0.28, 0.1, 0.1, 0.16, 0.13, 0.13]}
    for ax, rows in ((ax1, top), (ax2, bottom)):
        ax.axis("off")
        table = ax.table(cellText=rows, loc="upper center", cellLoc="center", colWidths=widths[id(rows)])
        table.auto_set_font_size(False)
        table.set_fontsize(7)
        for (r, col), cell in table.get_celld().items():
            if r == 0:
                cell.set_facecolor("#eeeeee")
            if rows is bottom and r >= first_item and col >= 1:
                # the item's text runs across the row: one open cell, left-aligned
                cell.set_facecolor("none")
                cell.visible_edges = "TB" + ("L" if col == 1 else "") + ("R" if col == 6 else "")
                if col == 1:
                    cell.get_text().set_horizontalalignment("left")
                    cell.PAD = 0.02
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return buffer.getvalue()
