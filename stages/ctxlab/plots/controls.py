"""A small control panel: move the truncation threshold or the model, rerun, redraw.

``RerunPanel`` runs a stage once as it is built, so its charts exist even where no widget
frontend is connected (a notebook executed headless, a test); the slider, the dropdown and the
button only matter to a person at a live notebook. The status line and the charts are ordinary
outputs with display ids (a rerun replaces them in place), so a page exported to HTML shows
them as they were last drawn; the controls need a kernel, and an export shows one line of text
that says so. Without ipywidgets installed it shows the charts of that first run.
``rerun()`` is what the button does; tests and scripts call it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from matplotlib.figure import Figure

from ctxlab import models, runner

from .context import plot_context
from .thrash import plot_thrash

Draw = Callable[[runner.RunResult, float], Figure]


def _context(result: runner.RunResult, ratio: float) -> Figure:
    return plot_context(result, ratio=ratio)


def _thrash(result: runner.RunResult, _ratio: float) -> Figure:
    return plot_thrash(result)


def describe(result: runner.RunResult) -> str:
    """One line about a run: outcome, turns, truncations, thrash, peak occupancy."""
    s = result.summary
    outcome = "succeeded" if s.success else (f"failed: {s.error['message']}" if s.error
                                             else "failed: " + "; ".join(result.problems))
    fired = sum(s.compactions_per_layer.values())
    return (f"{outcome} | {s.turns} turns | context layer fired {fired}x | duplicate-call rate "
            f"{s.duplicate_call_rate:.0%} | peak occupancy {s.peak_occupancy:.0%}")


EXPORTED = ("[controls: {names} and a Run button; they need a running kernel, so a page "
            "exported to HTML (or a notebook run without a browser) shows this line instead, "
            "and the charts below are those of the last run made]")


def controls_bundle(panel: Any) -> dict[str, Any]:
    """The controls' display data: the widget view, and as its text a line that says what an
    export shows (nbconvert falls back to the text when no widget state was saved)."""
    data = dict(panel.widget._repr_mimebundle_())
    data["text/plain"] = EXPORTED.format(names=", ".join(panel.control_names))
    return data


def redraw(panel: Any, status: str) -> None:
    """Put a panel's status line and figures in place of the ones it showed last.

    The figures are ordinary image outputs (kept by any export, unlike what an ``Output``
    widget holds); each has a display id, so a rerun replaces them where they are."""
    from IPython.display import HTML

    panel.status = status
    for handle, item in zip(panel.handles, [HTML(status), *panel.figures], strict=False):
        handle.update(item)


def show(panel: Any) -> None:
    """A panel's notebook display: its controls (when there are widgets), its status line and
    its figures; headless without ipywidgets, the same as text and images."""
    from IPython.display import HTML, display

    if panel.widget is None:
        print(describe(panel.result) if panel.result else "not run yet")
        for fig in panel.figures:
            display(fig)
        return
    display(controls_bundle(panel), raw=True)
    panel.handles = [display(item, display_id=True)
                     for item in (HTML(panel.status), *panel.figures)]


class RerunPanel:
    """Slider (``ratio``, 0.5–0.95), model dropdown and a Run button over ``runner.run``."""

    def __init__(self, stage: int = 2, scenario: str = "long-task", *,
                 model: str = models.DEFAULT_MODEL, ratio: float = 0.8,
                 draw: Sequence[Draw] = (_context, _thrash),
                 options: dict[str, Any] | None = None) -> None:
        self.stage, self.scenario, self.draw = stage, scenario, tuple(draw)
        self.options = dict(options or {})
        self.model, self.ratio = model, ratio
        self.result: runner.RunResult | None = None
        self.figures: list[Figure] = []
        self.widget: Any = None
        self.status, self.handles = "", []
        self._build_widgets()
        self.rerun()

    def _build_widgets(self) -> None:
        try:
            import ipywidgets as w
        except ImportError:  # charts of the first run are still shown
            return
        self.slider = w.FloatSlider(value=self.ratio, min=0.5, max=0.95, step=0.05,
                                    description="ratio", readout_format=".2f",
                                    continuous_update=False)
        self.dropdown = w.Dropdown(options=[m.id for m in models.MODELS], value=self.model,
                                   description="model")
        self.button = w.Button(description="Run", button_style="primary", icon="play")
        self.button.on_click(lambda _button: self.rerun())
        self.widget = w.HBox([self.slider, self.dropdown, self.button])
        self.control_names = ["ratio", "model"]

    def rerun(self) -> runner.RunResult:
        """Run with the current settings and redraw every chart."""
        if self.widget is not None:
            self.ratio, self.model = float(self.slider.value), str(self.dropdown.value)
        options = {**self.options, "ratio": self.ratio}
        self.result = runner.run(self.stage, self.scenario, model=self.model,
                                 layer_options=options)
        self.figures = [draw(self.result, self.ratio) for draw in self.draw]
        redraw(self, f"<b>stage {self.stage}, {self.scenario}, {self.model}, "
                     f"ratio {self.ratio:.2f}</b>: {describe(self.result)}")
        return self.result

    def _ipython_display_(self) -> None:
        show(self)
