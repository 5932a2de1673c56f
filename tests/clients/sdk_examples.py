"""The SDK's own examples (``examples/`` of the ``anthropic`` sdist, at the version the clients'
environment pins) run unchanged against ``ctxlab serve``.

The sdist ships them, so nothing is copied into this repository: the first run downloads the
pinned sdist from PyPI (``pip download --no-deps --no-binary :all: anthropic==VERSION``) into
the clients' environment and unpacks its ``examples/``. Each example runs as a program of its
own with ``ANTHROPIC_BASE_URL`` pointing at the server; it must exit 0 (its own assertions
hold), and its printout must show what it exists to show: a ``tool_use`` for the tools
example, a ``server_tool_use`` with its ``web_search_tool_result`` for web search, a thinking
block for thinking, a batch's results for ``batch_results.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import anthropic
from common import KEY, MODEL

HOME = Path(sys.prefix) / "sdk-examples"
# example → what its printout must contain (beyond exiting 0)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "messages.py": ("TextBlock(",),
    "messages_stream.py": ("accumulated message:",),
    "tools.py": ('"type": "tool_use"', '"stop_reason": "tool_use"', "Final response:"),
    "tools_runner.py": ("Fetching weather for", "ToolUseBlock", "TextBlock"),
    "structured_outputs.py": ("product_name=",),
    "thinking.py": ("Thinking: ", "Text: "),
    "images.py": ('"type": "text"',),
    "web_search.py": ('"type": "server_tool_use"', '"type": "web_search_tool_result"',
                      "Web search requests: 1"),
}


def examples_dir() -> Path:
    """The unpacked ``examples/`` of the installed SDK's sdist (downloaded once)."""
    version = anthropic.__version__
    target = HOME / f"anthropic-{version}" / "examples"
    if target.is_dir():
        return target
    HOME.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", "--disable-pip-version-check", "-d", str(HOME),
                    f"anthropic=={version}"], check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(HOME / f"anthropic-{version}.tar.gz") as sdist:
        members = [m for m in sdist.getmembers() if "/examples/" in m.name]
        sdist.extractall(HOME, members=members, filter="data")
    return target


def run(example: Path, url: str, *args: str) -> str:
    """Run one example against ``url``; its printout, or AssertionError with its tail."""
    env = dict(os.environ, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=KEY)
    done = subprocess.run([sys.executable, str(example), *args], env=env, cwd=example.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return done.stdout


def example_checks(url: str) -> dict[str, Callable[[], str]]:
    where = examples_dir()

    def check(name: str) -> Callable[[], str]:
        def go() -> str:
            out = run(where / name, url)
            missing = [m for m in EXAMPLES[name] if m not in out]
            assert not missing, f"printout lacks {missing}"
            return f"exit 0; printout shows {', '.join(EXAMPLES[name])}"[:120]
        return go

    def batch_results() -> str:
        client = anthropic.Anthropic(base_url=url, api_key=KEY)
        made = client.messages.batches.create(requests=[
            {"custom_id": f"q-{i}", "params": {"model": MODEL, "max_tokens": 64, "messages": [
                {"role": "user", "content": f"Question {i}"}]}} for i in range(3)])
        while client.messages.batches.retrieve(made.id).processing_status != "ended":
            time.sleep(0.2)
        out = run(where / "batch_results.py", url, made.id)
        assert out.count("custom_id=") == 3 and "succeeded" in out, out[-300:]
        return f"3 results of {made.id} printed"

    checks = {name.removesuffix(".py"): check(name) for name in EXAMPLES}
    checks["batch_results"] = batch_results
    return checks
