"""``python -m ctxlab.bench.sizing``: the measurement behind stage 5's error shares (§9.5,
docs/bench.md). Its arithmetic, and one replay through it in a process of its own (it patches
stage 5 to watch it, once per process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ctxlab.bench.sizing import summary
from ctxlab.replay.synthetic import synthetic_log


def test_a_share_is_the_error_beyond_the_slack_over_the_part_estimated() -> None:
    samples = [("freed", "a", 1_000.0, 556), ("freed", "b", 2_000.0, -456),
               ("size, before a growth is learned", "c", 500.0, 100)]
    lines = summary(samples, 256)
    assert lines[0].startswith("freed: 2 figures; largest share beyond 256 tokens 30.0% (a, "
                               "+556 on 1,000)")
    assert "largest share beyond 256 tokens -31.2% (c, +100 on 500)" in lines[1]


def test_a_replayed_log_gives_sizes_and_freed_figures(tmp_path: Path) -> None:
    synthetic_log(tmp_path / "s.jsonl", 120, seed=0, result_words=300)
    done = subprocess.run([sys.executable, "-m", "ctxlab.bench.sizing", "--no-runs", "--logs",
                           str(tmp_path)], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "session logs:"
    kinds = {line.split(":")[0].strip() for line in lines[1:]}
    assert {"freed", "size, added, growth learned"} <= kinds
