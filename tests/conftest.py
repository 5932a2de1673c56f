"""Test-suite root: the workbook plugin (--impl, --stage, --chain, exercise/pitfall marks)."""

pytest_plugins = ["ctxlab.workbook.pytest_plugin"]
