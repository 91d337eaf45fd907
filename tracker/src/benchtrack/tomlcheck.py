"""Checks for values read from a TOML file: each failure is BadInput naming the file and field."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput


def read_toml(path: Path, missing: str | None = None) -> dict[str, Any]:
    """The TOML document at `path`. An absent file is {} when `missing` is None, else BadInput
    expecting `missing`; an unreadable or invalid one is BadInput naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing is None:
            return {}
        raise BadInput(path, None, missing) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(path, None, "a readable UTF-8 TOML file", str(e)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(path, None, f"valid TOML ({e})") from None


class Checker:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, expected: str, got: object) -> BadInput:
        return BadInput(self.source, where, expected, got)

    def table(self, x: Any, where: str) -> dict[str, Any]:
        if not isinstance(x, dict):
            raise self.fail(where, "a table", x)
        return x

    def array(self, x: Any, where: str) -> list[Any]:
        if not isinstance(x, list):
            raise self.fail(where, "an array", x)
        return x

    def known(self, t: dict[str, Any], where: str, keys: set[str]) -> None:
        extra = sorted(set(t) - keys)
        if extra:
            raise self.fail(f"{where}.{extra[0]}", f"one of the keys {sorted(keys)}", extra[0])

    def string(self, t: dict[str, Any], key: str, where: str) -> str:
        x = t.get(key)
        if not isinstance(x, str) or not x.strip():
            raise self.fail(f"{where}.{key}", "a non-empty string", x)
        return x

    def boolean(self, t: dict[str, Any], key: str, where: str) -> bool:
        x = t.get(key)
        if not isinstance(x, bool):
            raise self.fail(f"{where}.{key}", "true or false", x)
        return x

    def scalar(self, x: Any, where: str) -> str:
        if isinstance(x, bool) or not isinstance(x, str | int | float):
            raise self.fail(where, "a string or number", x)
        return str(x)

    def number(self, x: Any, where: str, lo: float, hi: float) -> float:
        if isinstance(x, bool) or not isinstance(x, int | float) or not lo <= x <= hi:
            raise self.fail(where, f"a number in [{lo:g}, {hi:g}]", x)
        return float(x)

    def fraction(self, x: Any, where: str) -> float:
        if isinstance(x, bool) or not isinstance(x, int | float) or not 0 < x < 1:
            raise self.fail(where, "a fraction between 0 and 1 (0.05 = 5 %)", x)
        return float(x)

    def integer(self, x: Any, where: str, lo: int) -> int:
        if isinstance(x, bool) or not isinstance(x, int) or x < lo:
            raise self.fail(where, f"an integer >= {lo}", x)
        return x
