"""The ladder as the README's Markdown table (``ctxlab ladder --markdown``)."""

from __future__ import annotations

from typing import Any

from ..workbook.layout import STAGES


def _stage_cell(cells: dict[str, dict[str, str]], stage: int) -> str:
    shown = []
    for key, cell in cells.items():
        number, _, variant = key.partition(":")
        if number.isdigit() and int(number) == stage:
            shown.append(f"{variant}: {cell['status']}" if variant else cell["status"])
    plain = [s for s in shown if ":" not in s]
    return " · ".join(plain + [s for s in shown if ":" in s]) or "—"


def markdown(report: dict[str, Any]) -> str:
    """One row per rung, one column per stage; a variant cell reads ``naive: pitfall``, and
    ``—`` marks a stage the rung is not run on."""
    numbers = [s.number for s in STAGES]
    mine = any("layer" in rung["stages"] for rung in report["rungs"])
    head = [*map(str, numbers), *(["your layer"] if mine else [])]
    lines = ["| pitfall (§) | " + " | ".join(head) + " | fixed in |",
             "|---|" + "---|" * len(head) + "---|"]
    for rung in report["rungs"]:
        cells = [_stage_cell(rung["stages"], n) for n in numbers]
        if mine:
            cells.append(rung["stages"].get("layer", {}).get("status", "—"))
        lines.append(f"| `{rung['id']}` ({rung['section']}) | " + " | ".join(cells)
                     + f" | {rung['fixed_in']} |")
    return "\n".join(lines) + "\n"
