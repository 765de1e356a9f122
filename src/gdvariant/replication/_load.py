"""Find a module's schema by name, for the command line (``gdvariant schema ...``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ._declarations import NetClass
from ._schema import ClassLayout, Schema

__all__ = ["load_schema"]


def load_schema(target: str, *, order: str = "spec") -> tuple[Schema, ClassLayout | None]:
    """The schema of ``MODULE`` or ``MODULE:CLASS``, and that class's layout if named.

    MODULE is a dotted module name (found from the current folder, as ``python -m`` does) or
    a ``.py`` file. Its ``SCHEMA``, if it is a :class:`Schema`, is used as it is; otherwise
    every non-abstract :class:`NetClass` in the module's namespace is built, in definition
    order. CLASS is a Python class name or a table name.
    """
    name, _, class_name = target.partition(":")
    module = _import(name)
    schema = getattr(module, "SCHEMA", None)
    if not isinstance(schema, Schema):
        classes = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, NetClass) and not value.net_abstract
        ]
        if not classes:
            raise ValueError(f"{name} has no SCHEMA and no networked (NetClass) classes")
        schema = Schema.build(classes, order=order)
    if not class_name:
        return schema, None
    for layout in schema.classes:
        python_name = layout.cls.__name__ if layout.cls is not None else None
        if class_name in (layout.name, python_name):
            return schema, layout
    known = ", ".join(c.name for c in schema.classes)
    raise ValueError(f"{name} has no networked class {class_name!r} (it has {known})")


def _import(name: str) -> ModuleType:
    """A module by dotted name or by the path of its ``.py`` file."""
    try:
        if name.endswith(".py"):
            path = Path(name)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.is_file():
                raise ValueError(f"{name}: no such Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            return module
        if "" not in sys.path:
            sys.path.insert(0, "")
        return importlib.import_module(name)
    except ValueError:
        raise
    except Exception as exc:  # the module's own code failed: say so in one line
        raise ValueError(f"cannot import {name}: {type(exc).__name__}: {exc}") from None
