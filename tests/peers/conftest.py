"""The peers suite runs under ``make peers`` (it installs the optional extra first): LangChain's
layers, the API's own and the oracle, side by side with stage 5. Elsewhere it is skipped, and
says so."""

from __future__ import annotations

import os

import pytest

from ctxlab.peers import INSTALL, missing

RUN = os.environ.get("CTXLAB_PEERS") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = ("the peers suite runs with `make peers`" if not RUN else
              f"LangChain is not installed: {INSTALL}" if missing() else "")
    if not reason:
        return
    for item in items:
        if "tests/peers/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.skip(reason=reason))
