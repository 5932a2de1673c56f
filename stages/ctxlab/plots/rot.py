"""``ctxlab rot --plot``: the simulated needle curves beside the published points (§4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from ctxlab.plots.figure import add_caveat, new_figure


def rot_figure(model: str, cells: Sequence[Any], published: Sequence[dict[str, Any]]) -> Figure:
    """Left: accuracy by position, one curve per occupancy, with Liu et al.'s points.
    Right: accuracy by occupancy (mean over positions and at the last position) with the
    length-decline points (NoLiMa, MRCR)."""
    fig = new_figure(10.0, 4.2)
    by_position, by_occupancy = fig.subplots(1, 2)
    occupancies = sorted({c.occupancy for c in cells})
    for occupancy in occupancies:
        row = sorted((c for c in cells if c.occupancy == occupancy), key=lambda c: c.position)
        by_position.plot([c.position for c in row], [c.accuracy for c in row], marker=".",
                         label=f"simulated, {occupancy:.0%} full")
    for point in (p for p in published if "position" in p):
        by_position.scatter(point["position"], point["accuracy"], color="black", marker="x",
                            zorder=3)
    by_position.scatter([], [], color="black", marker="x", label="Liu et al. (20 docs)")
    by_position.set(xlabel="relative position of the fact", ylabel="found (share of runs)",
                    ylim=(0, 1.02), title=f"{model}: position")
    by_position.legend(fontsize=7)
    means = [sum(c.accuracy for c in cells if c.occupancy == o)
             / sum(1 for c in cells if c.occupancy == o) for o in occupancies]
    last = [max((c for c in cells if c.occupancy == o), key=lambda c: c.position).accuracy
            for o in occupancies]
    by_occupancy.plot(occupancies, means, marker="o", label="simulated, mean over positions")
    by_occupancy.plot(occupancies, last, marker="o", label="simulated, last position")
    sources = sorted({p["source"] for p in published if "occupancy" in p})
    for marker, source in zip("s^vD", sources, strict=False):
        points = [p for p in published if p.get("source") == source]
        by_occupancy.scatter([p["occupancy"] for p in points], [p["accuracy"] for p in points],
                             marker=marker, color="black", label=source, zorder=3)
    by_occupancy.set(xlabel="occupancy (input tokens / window)", xlim=(0, 1.02),
                     ylim=(0, 1.02), title="occupancy")
    by_occupancy.legend(fontsize=7)
    add_caveat(fig, "Published points: ../shared/reference/context-rot.md; the papers measured "
               "older models, the simulated tables extrapolate.", tokens=False)
    return fig
