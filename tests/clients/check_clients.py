"""``make clients``: the genuine SDK and three third-party Anthropic clients against
``ctxlab serve``, offline.

The SDK runs Message Batches (sync and async), reads the rate-limit headers, honours a 429's
``retry-after`` and gets a 413 with a request id (``sdk_checks``); the SDK's own shipped
examples run unchanged (``sdk_examples``: messages, streaming, batches, tools, tool runner,
structured outputs, thinking, images, web search). LangChain
(langchain-anthropic), litellm and pydantic-ai each run a short tool-calling task, a
structured-output request and a streaming usage check (``third_party``, ``litellm_checks``);
litellm also hands on the rate-limit headers and reads a Message Batch. It runs in its own
environment (``.venv-clients``, from ``tests/clients/requirements.txt``), so the project's
dependencies stay as they are; litellm reads its bundled price map instead of fetching one.
Usage: ``python check_clients.py PATH/TO/ctxlab`` (the Makefile passes the project's). Exit
status 1 when any check fails; each line says what was seen.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-map download
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")  # nor a header table
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")  # nor anything else it would fetch
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import functools  # noqa: E402
import sys  # noqa: E402

from common import serve  # noqa: E402
from litellm_checks import litellm_checks  # noqa: E402
from sdk_checks import sdk_checks  # noqa: E402
from sdk_examples import example_checks  # noqa: E402
from third_party import langchain_checks, pydantic_ai_checks  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    clients = {"anthropic (the SDK)": functools.partial(sdk_checks, ctxlab=argv[1]),
               "SDK examples": example_checks,
               "langchain-anthropic": langchain_checks, "litellm": litellm_checks,
               "pydantic-ai": pydantic_ai_checks}
    failed = total = 0
    with serve(argv[1]) as url:
        print(f"ctxlab serve at {url}")
        for client, make in clients.items():
            for feature, check in make(url).items():
                total += 1
                try:
                    detail, mark = check(), "ok  "
                except Exception as error:  # a check's failure is reported, not raised
                    detail, mark = f"{type(error).__name__}: {error}", "FAIL"
                    failed += 1
                print(f"{mark} {client:20} {feature:18} {detail}"[:300])
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
