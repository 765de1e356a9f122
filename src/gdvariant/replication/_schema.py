"""A built schema: every class flattened, numbered, hashed; what encoder and decoder share.

``Schema.build([...classes])`` validates and flattens (build-time :class:`SchemaError` naming
class and property); ``Schema.from_description(value)`` rebuilds the same layouts from the
canonical description alone, which is all a client needs to decode.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._bits import BitReader
from ._codecs import Codec
from ._declarations import NetClass, SchemaError
from ._delta import DeltaCoder, delta_coder
from ._fingerprint import (
    DESCRIPTION_TAG,
    FORMAT,
    class_description,
    codec_from_description,
    diff_descriptions,
    fingerprint,
)
from ._flatten import MAX_FLAT_PROPS, FlatProp, flatten
from ._source_order import source_order

__all__ = ["ClassLayout", "Schema"]

_ORDERS = ("spec", "source")


class ClassLayout:
    """One class's flat list and everything precomputed from it for the hot paths."""

    def __init__(
        self, name: str, class_id: int, props: Sequence[FlatProp], cls: type[NetClass] | None
    ) -> None:
        self.name, self.class_id, self.cls = name, class_id, cls
        self.props = tuple(props)
        self.count = len(self.props)
        self.index = {p.path: p.index for p in self.props}
        self.codecs: tuple[Codec, ...] = tuple(p.codec for p in self.props)
        #: per property: how its value is delta-coded in update records (None: sent whole)
        self.deltas: tuple[DeltaCoder | None, ...] = tuple(delta_coder(c) for c in self.codecs)
        self.baseline = tuple(p.default for p in self.props)
        frags = [p.codec.encode(p.default) for p in self.props]
        self.base_bits = tuple(f[0] for f in frags)
        self.base_widths = tuple(f[1] for f in frags)
        self.index_bits = max(self.count - 1, 0).bit_length()
        self.masks: dict[str | None, int] = {}
        for p in self.props:
            self.masks[p.audience] = self.masks.get(p.audience, 0) | 1 << p.index
        self.public_mask = self.masks.get(None, 0)
        self.restricted = {a: m for a, m in self.masks.items() if a is not None}
        self.description = class_description(name, class_id, self.props)
        self.fingerprint = fingerprint(self.description)

    def __repr__(self) -> str:
        return f"<ClassLayout {self.name} id={self.class_id} props={self.count}>"


def _bits_column(codec: Codec) -> str:
    if codec.width is not None:
        return str(codec.width)
    return f"<={codec.max_bits}" if codec.max_bits is not None else "var"


class Schema:
    """Every networked class, flattened and numbered; build with :meth:`build`."""

    def __init__(self, layouts: Iterable[ClassLayout]) -> None:
        self.classes = tuple(sorted(layouts, key=lambda c: c.class_id))
        self.by_name = {c.name: c for c in self.classes}
        self.by_class = {c.cls: c for c in self.classes if c.cls is not None}
        self.class_bits = max(len(self.classes) - 1, 0).bit_length()
        self.description = [DESCRIPTION_TAG, FORMAT, [c.description for c in self.classes]]
        self.fingerprint = fingerprint(self.description)

    @classmethod
    def build(
        cls,
        classes: Iterable[type[NetClass]],
        *,
        order: str = "spec",
        max_props: int = MAX_FLAT_PROPS,
    ) -> Schema:
        """Flatten and number ``classes``. ``order="source"`` numbers properties as Source
        2013's SendTable flattening would (sub-tables first, CHANGES_OFTEN swap)."""
        if order not in _ORDERS:
            raise ValueError(f"order must be one of {_ORDERS}, not {order!r}")
        chosen = list(dict.fromkeys(classes))
        names: dict[str, type[NetClass]] = {}
        for klass in chosen:
            if not (isinstance(klass, type) and issubclass(klass, NetClass)):
                raise SchemaError(f"{klass!r} is not a NetClass")
            if klass.net_abstract:
                raise SchemaError("is abstract: embed or inherit it instead", klass.__name__)
            if klass.net_table in names:
                raise SchemaError(
                    f"table name {klass.net_table!r} is also {names[klass.net_table].__name__}'s",
                    klass.__name__,
                )
            names[klass.net_table] = klass
        ids = _class_ids(chosen)
        layouts = []
        for klass in chosen:
            props = flatten(klass, max_props)
            if order == "source":
                props = source_order(klass, props)
            layouts.append(ClassLayout(klass.net_table, ids[klass], props, klass))
        return cls(layouts)

    @classmethod
    def from_description(cls, description: Sequence[Any]) -> Schema:
        """Rebuild the layouts from a canonical description (``schema.description``)."""
        try:
            tag, fmt, classes = description
            if tag != DESCRIPTION_TAG or fmt != FORMAT:
                raise ValueError(f"not a format-{FORMAT} description: {tag!r} {fmt!r}")
            layouts = []
            for name, class_id, props in classes:
                flat = []
                for index, path, codec_desc, audience, flags, width, raw in props:
                    codec = codec_from_description(codec_desc)
                    default = codec.decode(BitReader(bytes(raw)))
                    flat.append(
                        # Priorities only shaped the order, which the description fixes.
                        FlatProp(
                            index, path, codec, audience or None, bool(flags & 1), 100, default, ""
                        )
                    )
                    if codec.encode(default) != (int.from_bytes(raw, "little"), width):
                        raise ValueError(f"{name}.{path}: default does not round-trip")
                layouts.append(ClassLayout(name, class_id, flat, None))
        except SchemaError:
            raise
        except Exception as exc:
            raise SchemaError(f"bad schema description: {exc}") from exc
        return cls(layouts)

    def layout(self, cls: type[NetClass] | str) -> ClassLayout:
        """The layout of a class (or table name)."""
        found = self.by_name.get(cls) if isinstance(cls, str) else self.by_class.get(cls)
        if found is None:
            name = cls if isinstance(cls, str) else cls.__name__
            raise KeyError(f"{name} is not in this schema")
        return found

    def flat(self, cls: type[NetClass] | str) -> tuple[FlatProp, ...]:
        """A class's flat list in index order."""
        return self.layout(cls).props

    def explain(self, cls: type[NetClass] | str) -> str:
        """The flat table of one class: index, path, codec, bits, audience, flags."""
        lay = self.layout(cls)
        rows = [("index", "path", "codec", "bits", "audience", "flags")]
        for p in lay.props:
            flags = ",".join(
                f for f, on in (("hot", p.hot), (f"prio={p.priority}", p.priority != 100)) if on
            )
            rows.append(
                (
                    str(p.index),
                    p.path,
                    repr(p.codec),
                    _bits_column(p.codec),
                    p.audience or "-",
                    flags or "-",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(6)]
        lines = [
            f"{lay.name}: class {lay.class_id}, {lay.count} properties, "
            f"fingerprint {lay.fingerprint.hex()}"
        ]
        for r in rows:
            cells = [r[0].rjust(widths[0])] + [
                c.ljust(w) for c, w in zip(r[1:], widths[1:], strict=True)
            ]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)

    def diff(self, other: Schema) -> list[str]:
        """What differs from ``other``: per class, the first differing property."""
        return diff_descriptions(self.description, other.description)


def _class_ids(classes: Sequence[type[NetClass]]) -> dict[type[NetClass], int]:
    """Pinned ids first; the rest take the free numbers in table-name order (as Source)."""
    ids: dict[type[NetClass], int] = {}
    taken: dict[int, type[NetClass]] = {}
    for klass in classes:
        pinned = klass.net_class_id
        if pinned is not None:
            if not 0 <= pinned < len(classes):
                raise SchemaError(
                    f"class_id {pinned} is outside 0..{len(classes) - 1}", klass.__name__
                )
            if pinned in taken:
                raise SchemaError(
                    f"class_id {pinned} is also {taken[pinned].__name__}'s", klass.__name__
                )
            ids[klass] = pinned
            taken[pinned] = klass
    free = (i for i in range(len(classes)) if i not in taken)
    for klass in sorted(classes, key=lambda k: k.net_table):
        if klass not in ids:
            ids[klass] = next(free)
    return ids
