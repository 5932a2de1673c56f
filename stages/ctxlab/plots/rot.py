"""``ctxlab rot --plot``: the simulated needle curves beside the published tables (§4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from ctxlab.plots.figure import add_caveat, new_figure


def rot_figure(model: str, cells: Sequence[Any], published: Sequence[dict[str, Any]]) -> Figure:
    """Left: accuracy by length (mean over positions), both kinds, with the tables they are
    fitted to (RULER for literal facts, NoLiMa for latent ones); hollow markers beyond a
    table's lengths. Right: accuracy by position at each length, with Liu et al.'s shares."""
    fig = new_figure(10.0, 4.2)
    by_length, by_position = fig.subplots(1, 2)
    for kind, marker in (("literal", "o"), ("latent", "s")):
        rows = [c for c in cells if c.kind == kind]
        lengths = sorted({c.tokens for c in rows})
        means = [sum(c.accuracy for c in rows if c.tokens == t)
                 / sum(1 for c in rows if c.tokens == t) for t in lengths]
        line, = by_length.plot(lengths, means, marker=marker, label=f"simulated, {kind}")
        outside = [(t, m) for t, m in zip(lengths, means, strict=True)
                   if next(c for c in rows if c.tokens == t).extrapolated]
        by_length.scatter([t for t, _ in outside], [m for _, m in outside], s=80,
                          facecolors="none", edgecolors=line.get_color(), zorder=3)
        points = [p for p in published if p.get("kind") == kind]
        by_length.scatter([p["tokens"] for p in points], [p["accuracy"] for p in points],
                          marker="x", color=line.get_color(), zorder=4,
                          label=points[0]["source"] if points else kind)
    by_length.set_xscale("log", base=2)
    by_length.set(xlabel="tokens in the request (circled: extrapolated)",
                  ylabel="found (share of runs)", ylim=(0, 1.02), title=f"{model}: length")
    by_length.legend(fontsize=6)
    for tokens in sorted({c.tokens for c in cells if c.kind == "latent"}):
        row = sorted((c for c in cells if c.kind == "latent" and c.tokens == tokens),
                     key=lambda c: c.position)
        by_position.plot([c.position for c in row], [c.accuracy for c in row], marker=".",
                         label=f"latent, {tokens // 1024}K")
    liu = [p for p in published if "position" in p]
    by_position.scatter([p["position"] for p in liu], [p["accuracy"] for p in liu],
                        color="black", marker="x", zorder=3, label="Liu et al. (20 docs)")
    by_position.set(xlabel="relative position of the fact", ylim=(0, 1.02), title="position")
    by_position.legend(fontsize=6)
    add_caveat(fig, "Sources and fits: docs/rot.md; the papers measured older models, the "
               "simulated tables extrapolate.", tokens=False)
    return fig
