"""The exception tree: every failure gdvariant reports is a :class:`VariantError`."""

from __future__ import annotations

import enum
import json
from typing import Any

__all__ = [
    "ConnectionClosed",
    "DecodeError",
    "EncodeError",
    "GodotError",
    "JSONError",
    "TextError",
    "VariantError",
]


def key_repr(key: Any) -> str:
    """How a Dictionary key appears in an error path: ``["pos"]``, ``[3]``, ``[Vector2(...)]``."""
    if isinstance(key, str):
        return json.dumps(key, ensure_ascii=False)
    text = repr(key)
    return text if len(text) <= 40 else text[:37] + "..."


class GodotError(enum.IntEnum):
    """The engine's ``Error`` codes (``core/error/error_list.h``) that its decoder returns.

    A :class:`DecodeError` carries the code Godot itself would have returned for the same
    input, so a server can log or compare verdicts with the engine.
    """

    OK = 0
    ERR_UNAVAILABLE = 2
    ERR_UNAUTHORIZED = 4
    ERR_OUT_OF_MEMORY = 6
    ERR_FILE_UNRECOGNIZED = 15
    ERR_FILE_CORRUPT = 16
    ERR_FILE_EOF = 18
    ERR_INVALID_DATA = 30
    ERR_INVALID_PARAMETER = 31
    ERR_PARSE_ERROR = 43
    ERR_BUG = 47


def _short(path: str, limit: int = 120) -> str:
    """A path short enough for a message; the exception's ``path`` keeps all of it."""
    return path if len(path) <= limit else f"{path[:40]}...{path[-(limit - 43) :]}"


class VariantError(Exception):
    """Root of every error raised by gdvariant."""


class DecodeError(VariantError, ValueError):
    """Malformed, truncated, over-limit or forbidden input.

    ``offset`` is the byte offset (from the start of the buffer given to the decoder) where the
    problem was found, ``path`` locates the value inside the outer value (``[3]["pos"]``; empty at
    top level), ``code`` is the engine's error code for the same input. ``limit`` names the
    :class:`~gdvariant.Limits` field the input went over (``"max_depth"``...), if that was why.
    """

    def __init__(
        self,
        reason: str,
        offset: int,
        path: str = "",
        code: GodotError = GodotError.ERR_INVALID_DATA,
        limit: str | None = None,
    ) -> None:
        self.reason = reason
        self.offset = offset
        self.path = path
        self.code = code
        self.limit = limit
        super().__init__(self._message())

    def _message(self) -> str:
        where = f" at {_short(self.path)}" if self.path else ""
        return f"{self.reason} (offset {self.offset}{where}; Godot: {self.code.name})"

    def _with_path(self, path: str) -> DecodeError:
        self.path = path
        self.args = (self._message(),)
        return self

    def inside(self, what: str, start: int) -> DecodeError:
        """This error of a payload that starts at ``start`` of a larger stream or file:
        the reason names the container (``bad frame: ...``) and the offset counts from there."""
        return DecodeError(
            f"bad {what}: {self.reason}", start + self.offset, self.path, self.code, self.limit
        )


class TextError(DecodeError):
    """Text that the engine's parser rejects: ``line`` and ``column`` (1-based; Godot counts
    only LF as a line break) say where, ``expected`` says what would have been valid there."""

    def __init__(self, expected: str, offset: int, line: int, column: int, got: str = "") -> None:
        self.line = line
        self.column = column
        self.expected = expected
        self.got = got
        super().__init__(expected, offset, code=GodotError.ERR_PARSE_ERROR)

    def _message(self) -> str:
        got = f" (got {self.got})" if self.got else ""
        return f"line {self.line}, column {self.column}: {self.expected}{got}"


class JSONError(DecodeError):
    """JSON that :func:`~gdvariant.from_json` cannot read: ``path`` says where in the document
    (jq style: ``.`` is the whole document, then ``.key``, ``["odd key"]``, ``[3]``), and for
    text that is not JSON at all, ``line`` and ``column`` (1-based) say where it stops."""

    def __init__(self, reason: str, path: str = ".", line: int = 0, column: int = 0) -> None:
        self.line = line
        self.column = column
        super().__init__(reason, 0, path, GodotError.ERR_PARSE_ERROR)

    def _message(self) -> str:
        if self.line:
            return f"line {self.line}, column {self.column}: {self.reason}"
        return f"{self.reason} at {_short(self.path)}"


class EncodeError(VariantError, ValueError):
    """A value that the chosen engine version cannot represent; ``path`` says where it is."""

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(self._message())

    def _message(self) -> str:
        return f"{self.reason} at {_short(self.path)}" if self.path else self.reason

    def _with_path(self, path: str) -> EncodeError:
        self.path = path
        self.args = (self._message(),)
        return self


class ConnectionClosed(VariantError, ConnectionError):
    """The peer closed the connection between values (an adapter's ``get_var`` has no more).

    A connection that ends inside a frame is a :class:`DecodeError` instead: data was lost.
    """
