"""The pure-Python core: the reference implementation of the codec contract in ``_core``.

It is complete on its own (the compiled core is optional) and canonical: where the two differ,
this one is right unless the engine says otherwise.
"""

from __future__ import annotations

from ._decoder import decode_value
from ._encoder import encode_value

__all__ = ["decode_value", "encode_value"]
