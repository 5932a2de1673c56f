"""Reading one TOML table with errors that name the file and the field (DESIGN §5).

``Table`` remembers where it sits (``steps[2].input``) and which keys were read, so a typo in
a key is reported as an unknown field instead of being ignored.
"""

from __future__ import annotations

from typing import Any, NoReturn

from .schema import ScenarioError

_MISSING: Any = object()


class Table:
    """A TOML table being read; every accessor raises ``ScenarioError`` on bad data."""

    def __init__(self, data: dict[str, Any], file: str, where: str = "") -> None:
        self.data = data
        self.file = file
        self.where = where
        self._read: set[str] = set()

    def at(self, key: str) -> str:
        """The dotted location of ``key`` in this table."""
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, problem: str) -> NoReturn:
        raise ScenarioError(f"{self.file}: {self.at(key)}: {problem}")

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        self._read.add(key)
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            self.fail(key, "missing")
        return default

    def text(self, key: str, default: Any = _MISSING) -> Any:
        """A non-blank string (or ``default`` when the key is absent)."""
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {_kind(value)}")
        if not value.strip():
            self.fail(key, "must not be empty")
        return value

    def integer(self, key: str, default: Any = _MISSING, *, minimum: int = 0) -> int:
        value = self.raw(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"must be an integer, got {_kind(value)}")
        if value < minimum:
            self.fail(key, f"must be at least {minimum}, got {value}")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of non-blank strings (empty when absent)."""
        value = self.raw(key, [])
        if not isinstance(value, list):
            self.fail(key, f"must be a list of strings, got {_kind(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.fail(f"{key}[{i}]", "must be a non-empty string")
        return tuple(value)

    def table(self, key: str, default: Any = _MISSING) -> Table:
        value = self.raw(key, default)
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {_kind(value)}")
        return Table(value, self.file, self.at(key))

    def tables(self, key: str) -> list[Table]:
        """An array of tables (empty when absent)."""
        value = self.raw(key, [])
        if not isinstance(value, list):
            self.fail(key, f"must be an array of tables, got {_kind(value)}")
        found = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                self.fail(f"{key}[{i}]", f"must be a table, got {_kind(item)}")
            found.append(Table(item, self.file, self.at(f"{key}[{i}]")))
        return found

    def choice(self, key: str, options: tuple[str, ...], default: Any = _MISSING) -> str:
        value = self.text(key, default)
        if value not in options:
            self.fail(key, f"unknown value {value!r}; expected one of {', '.join(options)}")
        return value

    def done(self) -> None:
        """Refuse keys that were never read: they are typos or unsupported fields."""
        extra = sorted(set(self.data) - self._read)
        if extra:
            self.fail(extra[0], "unknown field")


def _kind(value: object) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)
