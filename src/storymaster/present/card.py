"""A sheet as a printable card (HTML or PNG) and as plain text: the same boxes in every form."""

from __future__ import annotations

import io
from functools import cache
from importlib.resources import files

import jinja2

from ..rules.sheet import Sheet, SheetSection

__all__ = ["card_html", "card_png", "sheet_text"]


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    return env.from_string(files(__package__).joinpath("templates/card.html.j2").read_text(encoding="utf-8"))


def _cell(v: object) -> str:
    if v is None:
        return ""
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def _rows(sec: SheetSection) -> tuple[list[str], list[list[str]]]:
    """A section as a header and rows of text: tables as they are, values as label | value | note."""
    if sec.is_table:
        return list(sec.columns), [[_cell(c) for c in r] for r in sec.rows]
    notes = any(v.note for v in sec.values)
    head = ["", ""] + ([""] if notes else [])
    rows = [
        [v.label, v.text if v.value is not None or v.maximum is not None else ""] + ([v.note] if notes else [])
        for v in sec.values
    ]
    return head, rows


def card_html(sheet: Sheet, *, title: str = "") -> str:
    """The sheet as a standalone printable HTML page, one boxed table per section."""
    boxes = []
    for sec in sheet.sections:
        if sec.empty and not sec.is_table:
            continue
        head, rows = _rows(sec)
        boxes.append(
            {"title": sec.title, "kind": sec.kind, "table": sec.is_table, "head": head, "rows": rows, "note": sec.note}
        )
    return _template().render(sheet=sheet, boxes=boxes, title=title or sheet.system)


def sheet_text(sheet: Sheet) -> str:
    """The sheet as plain text, one block per section (for logs, e-mail, a terminal without tables)."""
    out = [sheet.name]
    for sec in sheet.sections:
        head, rows = _rows(sec)
        if not rows:
            continue
        out.append("")
        out.append(sec.title.upper())
        if sec.is_table:
            out.append("  " + " | ".join(head))
        out += ["  " + " | ".join(c for c in r if c != "" or sec.is_table) for r in rows]
        if sec.note:
            out.append(f"  ({sec.note})")
    if sheet.problems:
        out += ["", "PROBLEMS"] + [f"  - {p}" for p in sheet.problems]
    return "\n".join(out) + "\n"


def card_png(sheet: Sheet, *, dpi: int = 120) -> bytes:
    """The card as a PNG image: the name, then every section as a boxed table (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks: list[tuple[str, list[str] | None, list[list[str]]]] = []
    for sec in sheet.sections:
        head, rows = _rows(sec)
        if sec.note:  # a section's note (a warning) is a row of its own, as in the HTML
            rows = [*rows, [sec.note] + [""] * (len(head) - 1)]
        if rows:
            blocks.append((sec.title.upper(), head if sec.is_table else None, rows))
    heights = [len(r) + (2 if h else 1) for _, h, r in blocks]
    total = max(1, sum(heights))
    fig = plt.figure(figsize=(6.5, 0.8 + 0.19 * total))
    fig.text(0.04, 1 - 0.3 / (0.8 + 0.19 * total), f"NAME: {sheet.name}", fontsize=10, style="italic")
    top = 1 - 0.6 / (0.8 + 0.19 * total)
    unit = (top - 0.02) / total
    for (title, columns, cells_rows), lines in zip(blocks, heights, strict=True):
        height = unit * lines
        ax = fig.add_axes((0.03, top - height, 0.94, height))
        ax.axis("off")
        width = max(len(r) for r in cells_rows)
        cells = [[title] + [""] * (width - 1)]
        if columns:
            cells.append(list(columns) + [""] * (width - len(columns)))
        cells += [list(r) + [""] * (width - len(r)) for r in cells_rows]
        table = ax.table(cellText=cells, loc="upper center", cellLoc="left")
        table.auto_set_font_size(False)
        table.set_fontsize(7)
        for (r, _), cell in table.get_celld().items():
            if r == 0 or (columns and r == 1):
                cell.set_facecolor("#eeeeee")
        top -= height
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    return buffer.getvalue()
