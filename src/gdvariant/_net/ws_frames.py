"""The WebSocket server's own frame reading: which reader is live, and where frames end.

A client's message is a masked binary frame; ``websockets``' sans-I/O parser reads each one
through generators, a lot of code for the few bytes of a game's RPC (docs/multiplayer.md,
"WebSocket transport"). :func:`read` takes such frames straight from a chunk and stops at the
first frame that is anything else, for ``websockets`` to judge as it always did. As the codec
core does (``gdvariant._compiled``), the reader is chosen once, at import: the compiled
``_cwsframes`` if it imports, else :mod:`._pywsframes`, the reference
(``GDVARIANT_PURE_PYTHON=1`` forces it). Both take ``(data, start, limit)`` with
``0 <= start <= len(data)`` (``data`` bytes, or a memoryview of the server's read buffer: a
read's frames are taken without copying the read) and give the same ``(payloads, stop)``.

:func:`frame_size` reads a frame's head only, so that the connection knows where the frame
``websockets`` is reading ends, and takes frames itself again from there.
"""

from __future__ import annotations

from collections.abc import Callable

from .._compiled import COMPILED as COMPILED
from .._compiled import PYTHON as PYTHON
from .._compiled import Compiled, Switch
from . import _pywsframes

__all__ = ["HOLD", "IMPLEMENTATION", "Reader", "frame_size", "holdable", "implementations", "read"]

#: The largest frame (head and payload) a connection holds the start of until the rest comes,
#: rather than hand it to ``websockets``: a Godot client writes a frame's head and its payload
#: apart, and a read may end between them.
HOLD = 4096

#: ``read(data, start, limit) -> (payloads, stop)``
Reader = Callable[[bytes | memoryview, int, int], tuple[list[bytes], int]]

_SWITCH = Switch(Compiled("gdvariant._net._cwsframes", "WebSocket frame reader"), _pywsframes)
#: The live reader: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _SWITCH.implementation
#: The live reader's ``read``.
read: Reader = _SWITCH.module.read


def implementations() -> dict[str, Reader]:
    """Every reader that imports, by name (the compiled one even under
    ``GDVARIANT_PURE_PYTHON``), for tests."""
    return {name: module.read for name, module in _SWITCH.implementations().items()}


def frame_size(data: bytes | memoryview, start: int) -> int | None:
    """The whole size (head, mask and payload) of the frame that starts at ``data[start]``,
    or None if its head is not all there; a client's frame is masked, but an unmasked one's
    size is counted as it is (``websockets`` fails the connection on it anyway)."""
    available = len(data) - start
    if available < 2:
        return None
    second = data[start + 1]
    length = second & 0x7F
    head = 2
    if length == 126:
        head = 4
    elif length == 127:
        head = 10
    if second & 0x80:
        head += 4
    if available < head:
        return None
    if length == 126:
        length = int.from_bytes(data[start + 2 : start + 4], "big")
    elif length == 127:
        length = int.from_bytes(data[start + 2 : start + 10], "big")
    return head + length


def holdable(data: bytes | memoryview, start: int, limit: int) -> bool:
    """Whether ``data[start:]``, the start of a frame, is worth holding until the rest comes:
    as far as its head shows, :func:`read` will take the frame once whole (binary, FIN,
    masked, at most ``limit`` bytes) and it has at most :data:`HOLD` bytes. Holding any
    bytes is safe (they go to ``websockets`` ahead of whatever follows); this only keeps a
    frame from ``websockets`` where it could not judge it yet either."""
    available = len(data) - start
    if data[start] != 0x82:
        return False
    if available < 2:
        return True
    second = data[start + 1]
    if not second & 0x80:
        return False
    length = second & 0x7F
    head = 6
    if length == 126:
        if available < 4:
            return True
        length = int.from_bytes(data[start + 2 : start + 4], "big")
        head = 8
    elif length == 127:
        if available < 10:
            return True
        length = int.from_bytes(data[start + 2 : start + 10], "big")
        head = 14
    return length <= limit and head + length <= HOLD
