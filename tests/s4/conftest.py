"""Stage-4 fixtures: a session factory on the simulated agent, working in ``tmp_path``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from s4help import make_session

from ctxlab.session import Session


@pytest.fixture
def session_on(tmp_path: Path) -> Callable[..., Session]:
    return lambda *args, **kwargs: make_session(tmp_path, *args, **kwargs)
