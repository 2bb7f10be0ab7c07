"""Bar charts of distributions as SVG text (pure: no I/O), for files and for web pages."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["svg_bar_chart"]


def svg_bar_chart(
    bars: Sequence[tuple[str, float]],
    *,
    title: str = "",
    width: int = 640,
    height: int = 320,
    highlight: set[str] | None = None,
) -> str:
    """An accessible SVG bar chart: ``bars`` are (label, probability) pairs.

    Each bar carries a ``<title>`` with its exact percentage, and the chart a
    ``<title>``/``<desc>`` pair, so a screen reader can read it; highlighted
    bars are hatched as well as coloured, so colour is never the only cue.
    """
    highlight = highlight or set()
    margin_l, margin_b, margin_t = 48, 40, 28 if title else 12
    plot_w, plot_h = width - margin_l - 12, height - margin_b - margin_t
    top = max((p for _, p in bars), default=0) or 1
    n = max(len(bars), 1)
    slot = plot_w / n
    bar_w = max(slot * 0.8, 1)
    label_every = max(1, round(n / 24))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-labelledby="chart-title chart-desc" font-family="sans-serif" font-size="11">',
        f'<title id="chart-title">{escape(title or "distribution")}</title>',
        f'<desc id="chart-desc">Bar chart of {len(bars)} outcomes; the most likely has probability {top:.2%}.</desc>',
        '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<line x1="0" y1="0" x2="0" y2="4" stroke="#fff" stroke-width="1.5"/></pattern></defs>',
        '<rect width="100%" height="100%" fill="#fff"/>',
    ]
    if title:
        parts.append(f'<text x="{width / 2:.1f}" y="18" text-anchor="middle" font-size="14">{escape(title)}</text>')
    for frac in (0.0, 0.5, 1.0):
        y = margin_t + plot_h * (1 - frac)
        parts.append(f'<line x1="{margin_l}" y1="{y:.1f}" x2="{width - 12}" y2="{y:.1f}" stroke="#ccc"/>')
        parts.append(f'<text x="{margin_l - 4}" y="{y + 4:.1f}" text-anchor="end">{top * frac:.1%}</text>')
    for i, (label, p) in enumerate(bars):
        h = plot_h * p / top
        x = margin_l + i * slot + (slot - bar_w) / 2
        y = margin_t + plot_h - h
        fill = "#b3541e" if label in highlight else "#2f5d8a"
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" fill="{fill}">'
            f"<title>{escape(label)}: {p:.4%}</title></rect>"
        )
        if label in highlight:
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" fill="url(#hatch)"/>')
        if i % label_every == 0:
            parts.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{height - margin_b + 14}" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return "\n".join(parts)
