"""A control panel for any stage's options: sliders and dropdowns, a Run button, redraw.

``RerunPanel`` (``controls.py``) moves stage 2's one ratio; an ``OptionsPanel`` takes a list
of ``Knob`` s instead, so a notebook can put stage 3's two budgets, stage 4's ``keep_recent``
or stage 5's keep counts under sliders. A knob named ``model`` picks the model; every other
knob becomes a layer option (``options`` can reshape them, e.g. to nest stage 4's options
under ``summary`` for stage 5). Like ``RerunPanel`` it runs once as it is built, so its
charts exist without a widget frontend (a notebook executed headless, a test); without
ipywidgets it shows the charts of that first run. A notebook that already made that first
run can pass it as ``first`` instead of waiting for it twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from ctxlab import models, runner

from .controls import describe, redraw, show

Values = dict[str, Any]
Draw = Callable[[runner.RunResult, Values], Figure]


@dataclass(frozen=True)
class Knob:
    """One control: a number between ``low`` and ``high``, or one of ``choices``."""

    name: str
    value: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple[Any, ...] = ()

    def widget(self) -> Any:
        import ipywidgets as w

        if self.choices:
            return w.Dropdown(options=list(self.choices), value=self.value,
                              description=self.name)
        if isinstance(self.value, int) and isinstance(self.step or 1, int):
            return w.IntSlider(value=self.value, min=int(self.low or 0), max=int(self.high or 1),
                               step=int(self.step or 1), description=self.name,
                               continuous_update=False)
        return w.FloatSlider(value=self.value, min=self.low or 0.0, max=self.high or 1.0,
                             step=self.step or 0.05, description=self.name,
                             readout_format=".2f", continuous_update=False)


def model_knob(value: str = models.DEFAULT_MODEL) -> Knob:
    """A dropdown over every model of the model table."""
    return Knob("model", value, choices=tuple(m.id for m in models.MODELS))


class OptionsPanel:
    """Knobs, a Run button and a status line over ``runner.run(stage, scenario, …)``."""

    def __init__(self, stage: int, scenario: str, knobs: Sequence[Knob], *,
                 draw: Sequence[Draw] = (),
                 options: Callable[[Values], dict[str, Any]] | None = None,
                 first: runner.RunResult | None = None) -> None:
        self.stage, self.scenario = stage, scenario
        self.knobs = tuple(knobs)
        self.draw = tuple(draw)
        self.options = options or dict
        self.values: Values = {k.name: k.value for k in self.knobs}
        self.result: runner.RunResult | None = None
        self.figures: list[Figure] = []
        self.widget: Any = None
        self.status, self.handles = "", []
        self.controls: dict[str, Any] = {}
        self._build_widgets()
        if first is None:
            self.rerun()
        else:  # a run the caller already made with the knobs' starting values
            self._show(first)

    def _build_widgets(self) -> None:
        try:
            import ipywidgets as w
        except ImportError:  # charts of the first run are still shown
            return
        self.controls = {k.name: k.widget() for k in self.knobs}
        self.button = w.Button(description="Run", button_style="primary", icon="play")
        self.button.on_click(lambda _button: self.rerun())
        self.widget = w.VBox([w.HBox(list(self.controls.values())), self.button])
        self.control_names = list(self.controls)

    def rerun(self, **values: Any) -> runner.RunResult:
        """Run with the controls' values (or ``values``, for scripts) and redraw."""
        if self.controls:
            self.values = {name: control.value for name, control in self.controls.items()}
        self.values.update(values)
        for name, value in values.items():
            if name in self.controls:
                self.controls[name].value = value
        settings = dict(self.values)
        model = settings.pop("model", None)
        return self._show(runner.run(self.stage, self.scenario, model=model,
                                     layer_options=self.options(settings)))

    def _show(self, result: runner.RunResult) -> runner.RunResult:
        self.result = result
        self.figures = [draw(result, dict(self.values)) for draw in self.draw]
        shown = ", ".join(f"{k}={v}" for k, v in self.values.items())
        redraw(self, f"<b>stage {self.stage}, {self.scenario}, {shown}</b>: "
                     f"{describe(self.result)}")
        return self.result

    def _ipython_display_(self) -> None:
        show(self)
