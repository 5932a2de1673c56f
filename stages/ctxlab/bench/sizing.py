"""How far stage 5's calibrated sizes are off (§9.5, issue 49): the measurement behind the
error shares of ``s5_pipeline/calibration.py`` (docs/bench.md, "Stage 5 sizes from usage").

Two figures, each as the share of the part sized from the estimate that the band must allow
beyond ``SLACK`` (``(|error| - SLACK) / part``, the form of ``Calibration.error``):

- **size**: every request sent after a reported usage, the size the calibration gave it (the
  last usage plus the calibrated change) against the next usage; split by whether a growth
  was learned (``GROWTH_ERROR``) or not yet (``ESTIMATE_ERROR``);
- **freed**: every figure a layer reported freed from the estimate, against the count of what
  it removed (in a run, the reference counts of the messages before and after; in a replay,
  the drop the replay measures, on hook calls where one layer fired).

On the reference run set (``fixtures/reference/runs.toml``) and on replays of the session
logs given (``--logs``, every ``*.jsonl`` in each folder, at the session's window and at 60K).
``python -m ctxlab.bench.sizing --jobs 2 --logs ../shared/transcripts ../shared/sessions``.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .reference import Run, key, reference_set

Sample = tuple[str, str, float, int]  # kind, where, part sized from the estimate, error
WINDOWS = (None, 60_000)
WATCH: dict[str, Any] = {}  # where the patched stage 5 records, in this process


def _watch(where: str, samples: list[Sample], counted: bool) -> None:
    """Record every size and freed figure of stage 5 into ``samples``, named ``where``, from
    now on in this process (stage 5 is patched once). In a run (``counted``) a size is held
    to the next usage and what a layer removed is counted; in a replay, whose usage adds the
    recorded client's unseen part as it was at each request, a size's change is held to the
    replay's count of the messages."""
    from s1_loop import reported_tokens
    from s5_pipeline.calibration import Calibration
    from s5_pipeline.pipeline import Pipeline

    from ..replay.measure import count_messages as replayed
    from ..tokens import count_messages

    WATCH.update(where=where, samples=samples, counted=counted, sent=None)
    if WATCH.get("patched"):
        return
    WATCH["patched"] = True
    learn, step, prepare = Calibration.learn, Pipeline._step, Pipeline.prepare

    def learned(self: Calibration, usage: Any) -> None:
        if WATCH["counted"] and self.sent is not None and self.reported is not None \
                and usage is not None and usage is not self.sent[0]:
            change = self.sent[1] - self.reported[1]
            error = reported_tokens(usage) - self.size(self.sent[1], 0)
            WATCH["samples"].append((_kind(self, change), WATCH["where"],
                                     self.rate(change) * abs(change), error))
        learn(self, usage)

    def prepared(self: Pipeline, messages: Any, session: Any) -> Any:
        out = prepare(self, messages, session)
        c, now = self.calibration, replayed(out)
        if not WATCH["counted"] and c.reported is not None and c.sent is not None \
                and WATCH["sent"] is not None:
            change = c.sent[1] - c.reported[1]
            error = now - WATCH["sent"] - (c.size(c.sent[1], 0) - c.reported[0])
            WATCH["samples"].append((_kind(c, change), WATCH["where"],
                                     c.rate(change) * abs(change), error))
        WATCH["sent"] = now
        return out

    def stepped(self: Pipeline, layer: str, before: Any, after: Any, session: Any,
                *args: Any) -> Any:
        fired = len(session.events)
        done = step(self, layer, before, after, session, *args)
        for event in session.events[fired:]:
            if WATCH["counted"] and event.get("freed_error"):
                drop = count_messages(before) - count_messages(done[0])
                WATCH["samples"].append(("freed", f"{WATCH['where']} {layer}",
                                         abs(event["tokens_freed"]), event["tokens_freed"] - drop))
        return done

    Calibration.learn, Pipeline._step, Pipeline.prepare = learned, stepped, prepared


def _kind(calibration: Any, change: float) -> str:
    """Which share of ``Calibration.change_error`` sizes a change: before a growth is
    learned, or once it is, for content added (at the growth) or removed (at the mean)."""
    if calibration.growth is None:
        return "size, before a growth is learned"
    return "size, " + ("added" if change > 0 else "removed") + ", growth learned"


def run_samples(run: Run) -> list[Sample]:
    """One run of the reference set, stage 5's sizes and freed figures in it."""
    from ..brain.retrieval import switched
    from ..runner import run as run_stage

    samples: list[Sample] = []
    _watch(key(run), samples, counted=True)
    scenario, stage, seed, rot = run
    with switched(rot == "on"):
        run_stage(stage, scenario, seed=seed)
    return samples


def log_samples(path: Path) -> list[Sample]:
    """One session log replayed through stage 5 at each of ``WINDOWS``."""
    from ..replay import replay_file

    samples: list[Sample] = []
    for window in WINDOWS:
        where = f"{path.name[:40]}@{window or 'session'}"
        _watch(where, samples, counted=False)
        report = replay_file(path, 5, window=window)
        calls: dict[tuple[int, str], list] = {}
        for event in report.events:
            calls.setdefault((event.turn, event.hook), []).append(event)
        for (turn, _), events in calls.items():
            if len(events) == 1 and events[0].freed_error:
                e = events[0]
                samples.append(("freed", f"{where} request {turn} {e.layer}",
                                abs(e.tokens_freed), e.tokens_freed - e.measured))
    return samples


def summary(samples: list[Sample], slack: int) -> list[str]:
    """Per kind: how many, and the largest share of the estimated part beyond ``slack``."""
    lines = []
    for kind in sorted({s[0] for s in samples}):
        shares = sorted(((abs(s[3]) - slack) / s[2], s) for s in samples
                        if s[0] == kind and s[2] > 0)
        if not shares:  # every figure of this kind sized nothing from the estimate
            continue
        largest, worst = shares[-1]
        lines.append(f"{kind}: {len(shares):,} figures; largest share beyond {slack} tokens "
                     f"{largest:.1%} ({worst[1]}, {worst[3]:+,} on {worst[2]:,.0f}); "
                     f"99th percentile {shares[int(0.99 * (len(shares) - 1))][0]:.1%}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ctxlab.bench.sizing",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--logs", type=Path, nargs="*", default=[],
                        help="folders of session logs to replay")
    parser.add_argument("--no-runs", action="store_true", help="the logs only")
    args = parser.parse_args(argv)
    from s5_pipeline.calibration import SLACK

    runs = [] if args.no_runs else reference_set()[0]
    logs = sorted(p for folder in args.logs for p in folder.glob("*.jsonl"))
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        found = [s for part in pool.map(run_samples, runs) for s in part]
        replayed = [s for part in pool.map(log_samples, logs) for s in part]
    for title, samples in (("reference runs", found), ("session logs", replayed)):
        if samples:
            print(f"{title}:", *summary(samples, SLACK), sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
