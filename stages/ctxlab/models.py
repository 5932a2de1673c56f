"""The one table of models: windows, output limits, cache minimums and prices.

Every model id used anywhere in the workbook comes from here (DESIGN §2). Figures are from the
API notes (prompt caching §1.5, pricing §1.7, model table §4); where the notes mark a figure
UNVERIFIED the table says so in ``note`` and the value chosen is the documented candidate.
Prices are dollars per million tokens. Lifecycle dates: the docs' model-deprecations page
(Opus 4 and Sonnet 4 deprecated 2026-04-14, retired 2026-06-15), the SDK's deprecation table
(``anthropic._data.deprecated_models``: Opus 4.5 until 2027-01-22; 2.14: Sonnet 4.5 until
2026-11-30) and the API notes §4; a date no source gives is not set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from .recall import RecallTable
from .recall import table as recall_table


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens (API notes §1.7; defaults 1.25x / 2x / 0.1x of input)."""

    input: float
    output: float
    write_5m: float
    write_1h: float
    cache_read: float

    @classmethod
    def standard(cls, input: float, output: float, *, cache_read: float | None = None) -> Prices:
        return cls(input, output, input * 1.25, input * 2.0,
                   input * 0.1 if cache_read is None else cache_read)


@dataclass(frozen=True)
class ModelSpec:
    """What the simulator needs to know about one model."""

    id: str
    context_window: int
    max_output: int
    cache_minimum: int
    prices: Prices
    # Claude 4.5 and newer accept input + max_tokens > window (R13); older ones reject it.
    generation: float
    # Tool-use system prompt tokens added when tools are present: (auto/none, any/tool).
    tool_overhead: tuple[int, int] = (497, 589)
    aliases: tuple[str, ...] = ()
    simulated_only: bool = False
    note: str = ""
    # Lifecycle (docs: model-deprecations; ``lifecycle``): the date it was deprecated, and the
    # date from which requests naming it fail (None: not announced).
    deprecated: date | None = None
    retired: date | None = None

    def lifecycle(self, on: date) -> str:
        """``active``, ``deprecated`` or ``retired`` on the day ``on``, as ``ModelInfo`` words
        it."""
        if self.retired is not None and on >= self.retired:
            return "retired"
        if self.deprecated is not None and on >= self.deprecated:
            return "deprecated"
        return "active"

    @property
    def snapshot(self) -> str:
        """The dated id the API lists and resolves the alias to (``claude-haiku-4-5`` →
        ``claude-haiku-4-5-20251001``); the id itself for a model named without a date."""
        return next((a for a in self.aliases if DATED.search(a)), self.id)

    @property
    def display_name(self) -> str:
        """The name as the API words it: ``Claude Opus 4.5``, ``Claude Sonnet 4`` (a ``-0``
        minor version is not written), ``Claude Fable 5.2``."""
        found = FAMILY.fullmatch(self.id)
        if found is None:
            return self.id
        line, major, minor = found.groups()
        version = major if minor in (None, "0") else f"{major}.{minor}"
        return f"Claude {line.capitalize()} {version}"

    @property
    def recall(self) -> RecallTable:
        """How well the model finds a fact in view, by position and fill: its family's table
        (``ctxlab.recall``, sources beside it; DESIGN §4 "Retrieval")."""
        return recall_table(self.id)

    @property
    def allows_prefill(self) -> bool:
        """Assistant prefill is rejected on Claude 4.6 and newer (R10)."""
        return self.generation < 4.6

    @property
    def rejects_overflowing_max_tokens(self) -> bool:
        """Models older than 4.5 reject input + max_tokens > window up front (R13)."""
        return self.generation < 4.5

    @property
    def supports_compaction(self) -> bool:
        """Server-side compaction is offered on 4.6 and newer (API notes §6)."""
        return self.generation >= 4.6 and not self.id.startswith("claude-haiku")


K = 1_000
M = 1_000_000
DATED = re.compile(r"-\d{8}$")
FAMILY = re.compile(r"claude-([a-z]+)-(\d+)(?:-(\d))?")

U = "UNVERIFIED: "  # a figure the API notes do not give; the note says which figure is used

MODELS: tuple[ModelSpec, ...] = (
    ModelSpec("claude-fable-5-2", M, 128 * K, 512, Prices.standard(8, 40), 5.2,
              tool_overhead=(286, 406),
              note=U + "cache minimum 512 and tool overhead 286/406 (Fable 5's and Opus 5's)"),
    ModelSpec("claude-fable-5-1", M, 128 * K, 512, Prices.standard(10, 50, cache_read=0.25),
              5.1, tool_overhead=(286, 406),
              note=U + "cache minimum 512 and tool overhead 286/406 (Fable 5's and Opus 5's)"),
    ModelSpec("claude-fable-5", M, 128 * K, 512, Prices.standard(10, 50), 5.0,
              tool_overhead=(286, 406), note=U + "tool overhead 286/406 (Opus 5's)"),
    ModelSpec("claude-mythos-5", M, 128 * K, 512, Prices.standard(10, 50), 5.0,
              tool_overhead=(286, 406), note=U + "tool overhead 286/406 (Opus 5's)"),
    ModelSpec("claude-opus-5-5", M, 128 * K, 512, Prices.standard(4, 20, cache_read=0.20), 5.5,
              tool_overhead=(286, 406),
              note=U + "cache minimum 512 and tool overhead 286/406 (Opus 5's)"),
    ModelSpec("claude-opus-5", M, 128 * K, 512, Prices.standard(5, 25), 5.0,
              tool_overhead=(286, 406)),
    ModelSpec("claude-sonnet-5-5", M, 128 * K, 1024, Prices.standard(2, 10, cache_read=0.10),
              5.5, tool_overhead=(354, 474),
              note="cache read $0.10 after the 2026-10-07 cut (UNVERIFIED); " + U
              + "cache minimum 1,024 (Sonnet 5's)"),
    ModelSpec("claude-sonnet-5", M, 128 * K, 1024, Prices.standard(2, 10), 5.0,
              tool_overhead=(354, 474)),
    ModelSpec("claude-haiku-5-5", M, 128 * K, 4096, Prices.standard(0.10, 0.50, cache_read=0.01),
              5.5, tool_overhead=(496, 588),
              note="prompts over 100K cost $0.50 / $2.50 (not modelled); " + U
              + "cache minimum 4,096 and tool overhead 496/588 (Haiku 4.5's)"),
    ModelSpec("claude-opus-4-8", M, 128 * K, 1024, Prices.standard(5, 25), 4.8,
              note=U + "tool overhead 497/589 (Opus 4.6's)"),
    ModelSpec("claude-opus-4-7", M, 128 * K, 2048, Prices.standard(5, 25), 4.7,
              note=U + "tool overhead 497/589 (Opus 4.6's)"),
    ModelSpec("claude-opus-4-6", M, 128 * K, 4096, Prices.standard(5, 25), 4.6),
    ModelSpec("claude-sonnet-4-6", M, 128 * K, 1024, Prices.standard(3, 15), 4.6),
    ModelSpec("claude-opus-4-5", 200 * K, 64 * K, 4096, Prices.standard(5, 25), 4.5,
              aliases=("claude-opus-4-5-20251101",), deprecated=date(2026, 11, 23),
              retired=date(2027, 1, 22),
              note="deprecated 2026-11-23, retires 2027-01-22; " + U
              + "tool overhead 497/589 (Opus 4.6's)"),
    ModelSpec("claude-sonnet-4-5", 200 * K, 64 * K, 1024, Prices.standard(3, 15), 4.5,
              aliases=("claude-sonnet-4-5-20250929",), deprecated=date(2026, 8, 21),
              retired=date(2026, 11, 30),
              note="deprecated (by 2026-08-21, when the API notes were synced: the exact day "
              "is UNVERIFIED), EOL 2026-11-30; " + U + "tool overhead 497/589 (Sonnet 4.6's)"),
    ModelSpec("claude-haiku-4-5", 200 * K, 64 * K, 4096, Prices.standard(1, 5), 4.5,
              tool_overhead=(496, 588), aliases=("claude-haiku-4-5-20251001",)),
    ModelSpec("claude-opus-4-1", 200 * K, 32 * K, 1024, Prices.standard(15, 75), 4.1,
              aliases=("claude-opus-4-1-20250805",),
              note=U + "window 200K, max output 32K, $15 / $75, tool overhead 497/589: the "
              "notes give only its cache minimum"),
    ModelSpec("claude-opus-4-0", 200 * K, 32 * K, 1024, Prices.standard(15, 75), 4.0,
              aliases=("claude-opus-4-20250514",), deprecated=date(2026, 4, 14),
              retired=date(2026, 6, 15),
              note="deprecated 2026-04-14, retired 2026-06-15; " + U + "window 200K, max "
              "output 32K, $15 / $75, tool overhead 497/589: the notes give only its cache "
              "minimum"),
    ModelSpec("claude-sonnet-4-0", 200 * K, 64 * K, 1024, Prices.standard(3, 15), 4.0,
              aliases=("claude-sonnet-4-20250514",), deprecated=date(2026, 4, 14),
              retired=date(2026, 6, 15),
              note="deprecated 2026-04-14, retired 2026-06-15; shows the pre-4.5 max_tokens rule "
              "(R13); " + U + "window 200K, max output 64K, $3 / $15, tool overhead 497/589: "
              "the notes give only its cache minimum"),
    ModelSpec("ctxlab-sim-32k", 32 * K, 8 * K, 1024, Prices.standard(1, 5), 4.5,
              tool_overhead=(496, 588), simulated_only=True,
              note="simulator-only model with a small window, for quick demos"),
)

NOT_A_MODEL = "<synthetic>"
"""What Claude Code records as the model of a message it wrote itself (an API error, say):
no model answered it (real-transcripts §4.5)."""

CLIENT_WINDOW = 200 * K
"""The window Claude Code runs a session at unless the model id carries ``[1m]``
(``LONG_CONTEXT``): its logs of 1M-window models auto-compact at 155–170K tokens
(real-transcripts §2.1, §2.2: ``preTokens`` 170,251 and 155,554)."""

LONG_CONTEXT = "[1m]"
"""The suffix Claude Code puts on a model id it runs with the 1M-token window."""

TABLE_DATE = date(2026, 12, 1)
"""The day this table's lifecycle dates were last read against the docs (model-deprecations,
the SDK's model list): the day ``ctxlab serve`` answers on unless told another (``--date``), so
nothing flips as real dates pass. In-process, a simulator reads the lifecycle on its simulated
clock's day (``SimClock.epoch``, 2026-03-02 at second 0)."""

DEFAULT_MODEL = "claude-haiku-4-5"
"""The workbook's default: a 200K window, as in the guide's examples (§8)."""

BATCH_DISCOUNT = 0.5  # "All usage is charged at 50% of the standard API prices" (batch docs)

_BY_ID: dict[str, ModelSpec] = {alias: m for m in MODELS for alias in (m.id, *m.aliases)}


def lookup(model_id: str) -> ModelSpec | None:
    """The spec for ``model_id`` (or one of its aliases), or None when unknown."""
    return _BY_ID.get(model_id)


def get(model_id: str) -> ModelSpec:
    """The spec for ``model_id``; raises KeyError naming the known ids when unknown."""
    spec = lookup(model_id)
    if spec is None:
        known = ", ".join(m.id for m in MODELS)
        raise KeyError(f"unknown model {model_id!r}; known models: {known}")
    return spec


def cost_usd(spec: ModelSpec, *, input_tokens: int, output_tokens: int, cache_read: int = 0,
             write_5m: int = 0, write_1h: int = 0, batch: bool = False) -> float:
    """R26: the dollar cost of one call from its usage partition; ``batch``: a Message Batch
    request, all of whose usage is charged at ``BATCH_DISCOUNT`` of these prices (the cache
    multipliers stack on it; docs: batch-processing, pricing)."""
    p = spec.prices
    full = (input_tokens * p.input + output_tokens * p.output + cache_read * p.cache_read
            + write_5m * p.write_5m + write_1h * p.write_1h) / M
    return full * BATCH_DISCOUNT if batch else full
