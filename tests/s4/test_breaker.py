"""Exercise 4.4 — the circuit breaker: transient errors retried with backoff, structural ones
counted, three in a row open it, and then only the no-model fallback runs (§9.4, §8.5)."""

from __future__ import annotations

from collections.abc import Callable

import anthropic
import httpx2
import pytest
from s4_summarize import CircuitBreaker, EmptySummary, SummaryTooLong, guarded
from s4help import api_error

pytestmark = pytest.mark.exercise("4.4")

TIMEOUT = anthropic.APITimeoutError(request=httpx2.Request("POST", "http://ctxlab.sim"))


class Calls:
    """A fake summarizer: each call raises the next scripted error (None: succeeds); once
    the script is used up, every call succeeds."""

    def __init__(self, *script: BaseException | None) -> None:
        self.script = list(script)
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        error = self.script.pop(0) if self.script else None
        if error is not None:
            raise error
        return "summary"


def _run(summarize: Callable[[], str], breaker: CircuitBreaker | None,
         delays: list[float] | None = None) -> str | None:
    sleeps = [] if delays is None else delays
    return guarded(summarize, lambda: "truncated", breaker, sleep=sleeps.append)


@pytest.mark.checklist("B.16", "B.17")
def test_three_structural_failures_open_it_and_then_no_model_is_called() -> None:
    breaker = CircuitBreaker()
    failing = Calls(*[EmptySummary("empty")] * 10)
    assert [_run(failing, breaker) for _ in range(3)] == [None, None, "truncated"]
    assert breaker.open and failing.count == 3
    assert [_run(failing, breaker) for _ in range(5)] == ["truncated"] * 5
    assert failing.count == 3


@pytest.mark.checklist("B.18")
def test_structural_failures_are_not_retried() -> None:
    for error in (SummaryTooLong("too long"),
                  api_error(anthropic.BadRequestError, 400, "messages: bad request")):
        once = Calls(error)
        assert _run(once, CircuitBreaker()) is None
        assert once.count == 1


@pytest.mark.checklist("B.16")
def test_a_success_resets_the_count() -> None:
    breaker = CircuitBreaker()
    flaky = Calls(EmptySummary("1"), EmptySummary("2"), None, EmptySummary("3"),
                  EmptySummary("4"))
    assert [_run(flaky, breaker) for _ in range(5)] == [None, None, "summary", None, None]
    assert not breaker.open and breaker.failures == 2


@pytest.mark.parametrize("error", [
    TIMEOUT,
    api_error(anthropic.RateLimitError, 429, "rate limited"),
    api_error(anthropic.OverloadedError, 529, "Overloaded"),
    api_error(anthropic.InternalServerError, 500, "Internal server error"),
], ids=["timeout", "429", "529", "500"])
@pytest.mark.checklist("B.18")
def test_transient_errors_are_retried_with_a_growing_wait(error: BaseException) -> None:
    delays: list[float] = []
    breaker = CircuitBreaker()
    flaky = Calls(error, error)
    assert _run(flaky, breaker, delays) == "summary"
    assert flaky.count == 3 and delays == [0.05, 0.1] and breaker.failures == 0


@pytest.mark.checklist("B.18")
def test_transient_errors_that_do_not_pass_count_as_one_failure() -> None:
    breaker = CircuitBreaker()
    down = Calls(*[TIMEOUT] * 3)
    assert _run(down, breaker) is None
    assert down.count == 3 and breaker.failures == 1


def test_without_a_breaker_it_never_stops_calling() -> None:
    failing = Calls(*[EmptySummary("empty")] * 10)
    assert [_run(failing, None) for _ in range(10)] == [None] * 10
    assert failing.count == 10
