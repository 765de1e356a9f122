"""The public surface: ``gdvariant.__all__`` is exactly the public names."""

from __future__ import annotations

import importlib
import types
from typing import Any

import gdvariant as gd
from gdvariant import _core

# The private modules whose __all__ is public API. (_encoder/_decoder/_layouts export
# machinery for the other private modules — Encoder, decode_value — reached through _api;
# _fastlz is used by _containers only.)
API_MODULES: list[types.ModuleType] = [
    importlib.import_module(f"gdvariant.{name}")
    for name in (
        "_api",
        "_collections",
        "_containers",
        "_detect",
        "_errors",
        "_framing",
        "_json",
        "_legacy",
        "_limits",
        "_math",
        "_packed",
        "_profiles",
        "_records",
        "_text_parser",
        "_text_writer",
        "_types",
    )
]
# Names defined in __init__ itself.
OWN_NAMES = {"IMPLEMENTATION", "__version__"}


def test_all_has_no_duplicates() -> None:
    assert len(gd.__all__) == len(set(gd.__all__))


def test_every_name_in_all_exists() -> None:
    for name in gd.__all__:
        assert hasattr(gd, name), name


def test_private_modules_are_re_exported() -> None:
    for module in API_MODULES:
        for name in module.__all__:
            assert name in gd.__all__, f"{module.__name__}.{name} is not exported"
            assert getattr(gd, name) is getattr(module, name)


def test_all_is_exactly_the_api_modules_plus_own_names() -> None:
    from_modules = {name for module in API_MODULES for name in module.__all__}
    assert set(gd.__all__) == from_modules | OWN_NAMES


def test_no_private_names_in_all() -> None:
    for name in gd.__all__:
        assert not name.startswith("_") or name == "__version__", name


def test_no_public_name_outside_all() -> None:
    public = {
        name
        for name, value in vars(gd).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    # `annotations` is the __future__ feature object from `from __future__ import annotations`.
    assert public - set(gd.__all__) <= {"annotations"}


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, Any] = {}
    exec("from gdvariant import *", namespace)
    namespace.pop("__builtins__")
    assert set(namespace) == set(gd.__all__)


def test_exported_classes_and_functions_live_in_the_package() -> None:
    for name in gd.__all__:
        value = getattr(gd, name)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__.startswith("gdvariant."), name


def test_module_metadata() -> None:
    assert isinstance(gd.__version__, str)
    assert gd.__version__.count(".") >= 2
    # The compiled core when it is built (and not switched off), else the pure one.
    built = "c" in _core.implementations() and not _core.PURE_FORCED
    assert ("c" if built else "python") == gd.IMPLEMENTATION


def test_error_hierarchy() -> None:
    assert issubclass(gd.DecodeError, gd.VariantError)
    assert issubclass(gd.EncodeError, gd.VariantError)
    assert issubclass(gd.DecodeError, ValueError)
    assert issubclass(gd.EncodeError, ValueError)
    assert issubclass(gd.VariantError, Exception)
    assert int(gd.GodotError.ERR_INVALID_DATA) == 30  # core/error/error_list.h (spec §7)
    assert int(gd.GodotError.ERR_UNAUTHORIZED) == 4
    assert int(gd.GodotError.ERR_FILE_EOF) == 18
    assert int(gd.GodotError.ERR_OUT_OF_MEMORY) == 6


def test_variant_type_numbers() -> None:
    # Spec §1: Godot 4 Variant::Type numbering.
    t = gd.VariantType
    assert [t.NIL, t.BOOL, t.INT, t.FLOAT, t.STRING] == [0, 1, 2, 3, 4]
    assert (t.TRANSFORM2D, t.VECTOR4, t.VECTOR4I, t.PROJECTION) == (11, 12, 13, 19)
    assert (t.COLOR, t.STRING_NAME, t.NODE_PATH, t.OBJECT) == (20, 21, 22, 24)
    assert (t.DICTIONARY, t.ARRAY, t.PACKED_BYTE_ARRAY) == (27, 28, 29)
    assert (t.PACKED_COLOR_ARRAY, t.PACKED_VECTOR4_ARRAY) == (37, 38)
    assert len([m for m in t if m < 100]) == 39
    # Types Godot 4 lacks (Godot 2, Pandemonium) are numbered from 100 up.
    assert (t.IMAGE, t.INPUT_EVENT, t.PACKED_TYPED_ARRAY) == (100, 101, 106)
    assert [int(c) for c in gd.ContainerKind] == [0, 1, 2, 3]


def test_replication_subpackage_exports() -> None:
    from gdvariant import replication

    assert len(replication.__all__) == len(set(replication.__all__))
    namespace: dict[str, Any] = {}
    exec("from gdvariant.replication import *", namespace)
    namespace.pop("__builtins__")
    assert set(namespace) == set(replication.__all__)
    public = {
        name
        for name, value in vars(replication).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - set(replication.__all__) <= {"annotations"}
    for name in replication.__all__:
        value = getattr(replication, name)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__.startswith("gdvariant.replication."), name
