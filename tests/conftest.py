"""Test-suite root. The workbook plugin (``--impl``, ``--stage``, ``--chain``, exercise and
pitfall marks) is loaded for every run by ``addopts`` in pyproject.toml."""

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """For ``make test`` (pytest-xdist, ``--dist loadgroup``): a module's tests run on one
    worker, so what the module computes once (module fixtures, cached runs) is computed once.
    A test that names its own group (each notebook) is scheduled on its own."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
