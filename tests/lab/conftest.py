"""Fixtures of the simulator conformance suite: one ``Simulator``, two transports.

Every client-facing test runs twice: through ``make_client(sim)`` (the genuine SDK over an
in-process ``httpx2.MockTransport``) and through a real HTTP server (``SimServer``, what
``ctxlab serve`` runs) with a plain ``anthropic.Anthropic(base_url=...)``. Both talk to the
test's own ``sim``, so tests can inspect ``sim.calls``, move ``sim.clock`` and plug in
responders or faults. One HTTP server serves the whole session (stopping a server costs half a
second); each test points it at its own simulator and log.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import anthropic._base_client
import httpx2
import pytest

from ctxlab.sim import Simulator, make_client
from ctxlab.sim.server import SimServer

TIMEOUT_DELAY = 1.0  # how long the HTTP server hangs on an injected timeout


@pytest.fixture
def sim() -> Simulator:
    return Simulator()


@pytest.fixture(scope="session")
def _shared_server() -> Iterator[SimServer]:
    server = SimServer(Simulator(), timeout_delay=TIMEOUT_DELAY)
    server.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def server_log() -> list[str]:
    """Lines the HTTP server logged during the test (one per request)."""
    return []


@pytest.fixture
def server(_shared_server: SimServer, sim: Simulator, server_log: list[str]) -> Iterator[SimServer]:
    """The HTTP server, serving this test's ``sim`` and logging into ``server_log``."""
    _shared_server.sim = sim
    _shared_server.log = server_log.append
    yield _shared_server
    _shared_server.log = None


@pytest.fixture(params=["inproc", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


class _RetryClock:
    """The SDK's ``time`` module, but its retry waits are recorded instead of slept."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds the SDK chose to wait before each retry, in order: the tests' clock is
    simulated, so the SDK's ``time.sleep`` between attempts records instead of waiting."""
    clock = _RetryClock()
    monkeypatch.setattr(anthropic._base_client, "time", clock)
    return clock.slept


@pytest.fixture
def connect(transport: str, sim: Simulator, slept: list[float],
            request: pytest.FixtureRequest) -> Iterator[Callable[..., anthropic.Anthropic]]:
    """``connect(**options)``: a genuine SDK client for this test's transport and ``sim``."""
    made: list[anthropic.Anthropic] = []

    def make(**options: Any) -> anthropic.Anthropic:
        if transport == "inproc":
            client = make_client(sim, **options)
        else:
            url = request.getfixturevalue("server").url
            options.setdefault("api_key", sim.api_key or "k")
            client = anthropic.Anthropic(base_url=url, **options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(connect: Callable[..., anthropic.Anthropic]) -> anthropic.Anthropic:
    return connect()


@pytest.fixture
def post_raw(transport: str, sim: Simulator,
             request: pytest.FixtureRequest) -> Callable[..., httpx2.Response]:
    """``post_raw(body, path=..., headers=...)``: send raw bytes, bypassing the SDK.

    In-process the bytes go straight to ``sim.handle`` (which must never raise); over HTTP they
    go to the server with a plain ``httpx2`` request.
    """
    def post(body: bytes, *, path: str = "/v1/messages",
             headers: dict[str, str] | None = None) -> httpx2.Response:
        if headers is None:
            headers = {"x-api-key": "k", "anthropic-version": "2023-06-01",
                       "content-type": "application/json"}
        if transport == "inproc":
            answer = sim.handle("POST", path, headers, body)
            return httpx2.Response(answer.status, headers=answer.headers, content=answer.body)
        url = request.getfixturevalue("server").url
        return httpx2.post(url + path, content=body, headers=headers, timeout=10)

    return post
