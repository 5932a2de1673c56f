"""Test-suite root. The workbook plugin (``--impl``, ``--stage``, ``--chain``, exercise and
pitfall marks) is loaded for every run by ``addopts`` in pyproject.toml."""
