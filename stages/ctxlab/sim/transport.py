"""The genuine ``anthropic`` SDK client, wired to the simulator in-process (API notes §2.5).

``make_client(sim)`` returns a real ``anthropic.Anthropic`` whose HTTP requests never leave the
process: an ``httpx2.MockTransport`` hands each one to ``Simulator.handle``. The SDK's own
retries, exceptions and stream parsing all run unchanged.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2

from . import collector
from .engine import SimResponse, Simulator

BASE_URL = "http://ctxlab.sim"
OFFLINE_KEY = "sk-ant-offline-simulator"


def _to_httpx(request: httpx2.Request, answer: SimResponse) -> httpx2.Response:
    if answer.timeout:
        raise httpx2.ReadTimeout("simulated timeout: the server did not answer", request=request)
    return httpx2.Response(answer.status, headers=answer.headers, content=answer.body)


def _handler(sim: Simulator) -> Any:
    def handle(request: httpx2.Request) -> httpx2.Response:
        path = request.url.raw_path.decode("ascii")  # with the query (models.list pages)
        with collector.paused():
            answer = sim.handle(request.method, path, dict(request.headers), request.read())
        return _to_httpx(request, answer)

    return handle


def make_client(sim: Simulator | None = None, **options: Any) -> anthropic.Anthropic:
    """A real SDK client backed by ``sim`` (a fresh simulator when None)."""
    sim = sim or Simulator()
    transport = httpx2.MockTransport(_handler(sim))
    options.setdefault("api_key", sim.api_key or OFFLINE_KEY)
    return anthropic.Anthropic(base_url=BASE_URL, http_client=httpx2.Client(transport=transport),
                               **options)


def make_async_client(sim: Simulator | None = None, **options: Any) -> anthropic.AsyncAnthropic:
    """The async twin of ``make_client``."""
    sim = sim or Simulator()
    sync_handle = _handler(sim)

    async def handle(request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return sync_handle(request)

    transport = httpx2.MockTransport(handle)
    options.setdefault("api_key", sim.api_key or OFFLINE_KEY)
    return anthropic.AsyncAnthropic(base_url=BASE_URL,
                                    http_client=httpx2.AsyncClient(transport=transport),
                                    **options)
