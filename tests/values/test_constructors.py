"""The value types' compiled ``__new__`` (``gdvariant._values._cvalues``) against the Python
one it stands in for (``gdvariant._values.constructors``): the same values, the same errors."""

from __future__ import annotations

import gc
import inspect
import math
import random
import sys
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from gdvariant import Color, Quaternion, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i
from gdvariant._compiled import PURE_FORCED
from gdvariant._values import constructors
from tests.support.cores import compiled_required

REALS = [Vector2, Vector3, Vector4, Quaternion, Color]
INTS = [Vector2i, Vector3i, Vector4i]


class Floaty:
    """Not a number, but float() takes it."""

    def __float__(self) -> float:
        return 2.5


class Indexy:
    """Not an int, but operator.index() takes it."""

    def __index__(self) -> int:
        return -7


class IntFloaty(int):
    """An int whose float() is its own: not an exact int, so not the int fast path."""

    def __float__(self) -> float:
        return 0.25


class Raising:
    def __float__(self) -> float:
        raise ArithmeticError("no float here")

    def __index__(self) -> int:
        raise ArithmeticError("no index here")


ODD = [
    0,
    -0.0,
    True,
    2**53 + 1,
    10**400,
    -(2**63),
    float("nan"),
    float("inf"),
    "1e3",
    " -2.5 ",
    "x",
    None,
    b"1",
    Floaty(),
    Indexy(),
    IntFloaty(5),
    -(2**1023) * 2,
    Raising(),
    [1],
    3.75,
]


def twins(cls: type) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The Python ``__new__`` of ``cls`` and its compiled twin (skipped when not built)."""
    pure = constructors.PURE[f"{cls.__name__}.__new__"]
    compiled = constructors.compiled_twin(pure, ints=cls in INTS)
    if compiled is None:
        why = constructors.compiled_error() or "compiled value constructors not built"
        if compiled_required():
            pytest.fail(f"GDVARIANT_REQUIRE_COMPILED is set but {why}")
        pytest.skip(why)
    return pure, compiled


def outcome(new: Callable[..., Any], cls: type, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """What a call gives: the value with its type, or the error's type (and its message when
    it comes from the conversion, which both share; the call errors word it their own way)."""
    try:
        value = new(cls, *args, **kwargs)
    except TypeError as exc:
        converting = "argument" not in str(exc) and "keyword" not in str(exc)
        return ("TypeError", str(exc) if converting else "")
    except (ValueError, OverflowError, ArithmeticError) as exc:
        return (type(exc).__name__, str(exc))
    return (type(value), [repr(x) for x in value], [type(x) for x in value])


def calls(cls: type, rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    """A random call of ``cls``: some fields positional, some by name (a few by a wrong or a
    repeated name), sometimes one argument too many."""
    fields = list(cls._fields)  # type: ignore[attr-defined]
    values = [rng.choice(ODD) if rng.random() < 0.3 else rng.uniform(-1e6, 1e6) for _ in fields]
    split = rng.randint(0, len(fields))
    args = values[:split]
    kwargs = {name: value for name, value in zip(fields[split:], values[split:], strict=True)}
    kwargs = {k: v for k, v in kwargs.items() if rng.random() < 0.8}
    roll = rng.random()
    if roll < 0.05:
        args.append(1.0)
    elif roll < 0.1:
        kwargs["nope"] = 1
    elif roll < 0.15 and split:
        kwargs[fields[0]] = 1
    return args, kwargs


@pytest.mark.parametrize("cls", REALS + INTS, ids=lambda cls: cls.__name__)
def test_the_compiled_new_gives_what_the_python_one_gives(cls: type) -> None:
    pure, compiled = twins(cls)
    rng = random.Random(cls.__name__)
    for _ in range(3000):
        args, kwargs = calls(cls, rng)
        assert outcome(compiled, cls, args, kwargs) == outcome(pure, cls, args, kwargs), (
            args,
            kwargs,
        )


@pytest.mark.parametrize("cls", REALS + INTS, ids=lambda cls: cls.__name__)
def test_calling_the_class_gives_what_the_python_new_gives(cls: type) -> None:
    """``Vector2(...)`` itself, which the compiled constructor short-cuts past
    ``type.__call__`` once the class is built (many arguments included)."""
    pure = constructors.PURE[f"{cls.__name__}.__new__"]
    rng = random.Random(f"class {cls.__name__}")
    for _ in range(3000):
        args, kwargs = calls(cls, rng)
        if rng.random() < 0.02:
            args += [1.0] * rng.randint(10, 20)
        got = outcome(lambda c, *a, **k: c(*a, **k), cls, args, kwargs)
        assert got == outcome(pure, cls, args, kwargs), (args, kwargs)


def test_a_subclass_is_built_as_type_call_builds_it() -> None:
    """A subclass keeps ``type.__call__``: its own ``__init__`` runs, its type is its own."""
    inits: list[tuple[Any, ...]] = []

    class Tagged(Vector2):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            inits.append((args, kwargs))

    for _ in range(3):
        value = Tagged(1, y=2)
        assert type(value) is Tagged and tuple(value) == (1.0, 2.0)
    assert inits == [((1,), {"y": 2})] * 3
    assert type(Vector2(1, 2)) is Vector2


def test_defaults_keywords_and_conversions_by_hand() -> None:
    _, new = twins(Quaternion)
    assert new(Quaternion) == Quaternion(0.0, 0.0, 0.0, 1.0)  # the identity, not zeros
    assert tuple(new(Quaternion, 1, w=2)) == (1.0, 0.0, 0.0, 2.0)
    value = new(Quaternion, True, Floaty(), "1e3", 2**53 + 1)
    assert type(value) is Quaternion
    assert list(value) == [1.0, 2.5, 1000.0, 9007199254740992.0]
    assert all(type(x) is float for x in value)
    assert math.copysign(1.0, new(Quaternion, -0.0)[0]) == -1.0
    _, new_i = twins(Vector2i)
    assert new_i(Vector2i, Indexy(), y=True) == Vector2i(-7, 1)
    assert all(type(x) is int for x in new_i(Vector2i, Indexy(), True))
    with pytest.raises(TypeError, match="at most 2 arguments"):
        new_i(Vector2i, 1, 2, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        new_i(Vector2i, z=1)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        new_i(Vector2i, 1, x=1)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        new_i(Vector2i, 1.5)


def test_the_live_new_is_the_compiled_one_when_built() -> None:
    twins(Vector2)  # skips when not built
    live = "python" if PURE_FORCED else "c"
    assert live == constructors.IMPLEMENTATION
    assert (Vector2.__new__ is constructors.PURE["Vector2.__new__"]) == (live == "python")
    assert Vector2(1, 2) == Vector2(x=1.0, y=2.0) and type(Vector2(1, 2)[0]) is float


def test_the_signature_is_the_python_ones() -> None:
    """``inspect.signature`` (the command line's literal checks read it) sees the Python
    ``__new__``'s parameters through the compiled one."""
    pure, compiled = twins(Vector3)
    assert inspect.signature(compiled) == inspect.signature(pure)
    assert list(inspect.signature(Vector3).parameters) == ["x", "y", "z"]


@pytest.mark.parametrize("cls", REALS + INTS, ids=lambda cls: cls.__name__)
def test_compiled_values_are_not_walked_by_the_cyclic_gc(cls: type) -> None:
    """Numbers only, no ``__dict__``: no cycle can run through one, so the compiled ``__new__``
    leaves it untracked (CPython never untracks a tuple subclass itself; a server's thousands of
    vectors a tick were walked, promoted and walked again in every full collection)."""
    pure, compiled = twins(cls)
    assert not gc.is_tracked(compiled(cls, 1))
    assert gc.is_tracked(pure(cls, 1))


class Held:
    """Something a value can hold (through ``tuple.__new__``), to see it released."""


@pytest.mark.parametrize("cls", REALS + INTS, ids=lambda cls: cls.__name__)
def test_freeing_values_releases_their_class_and_items(cls: type) -> None:
    """A value dies through the compiled build's own dealloc (or CPython's, pure): each
    releases its class once, and every item it holds, whatever made it."""
    cls(1)  # the first call installs the compiled class call and dealloc
    gc.collect()
    before = sys.getrefcount(cls)
    made = [cls(i) for i in range(1000)]
    assert sys.getrefcount(cls) >= before + 1000 - 10  # (others may die meanwhile)
    del made
    assert sys.getrefcount(cls) == before
    held = Held()
    alive = weakref.ref(held)
    value: Any = tuple.__new__(cls, (held,) * len(cls()))
    assert gc.is_tracked(value)  # it holds an object: the cyclic GC must see it
    del value, held
    assert alive() is None
    assert sys.getrefcount(cls) == before


def test_a_deep_chain_of_values_is_freed_without_recursing_the_stack_away() -> None:
    """``tuple.__new__`` can nest values in values; freeing a long chain goes through the
    trashcan (as a tuple's dealloc does), not one C frame a link."""
    Vector2(0, 0)
    chain: Any = Vector2(0, 0)
    for _ in range(200_000):
        chain = tuple.__new__(Vector2, (chain, 0.0))
    del chain  # a crash, not an assertion, if it recursed


def test_a_subclass_with_a_dict_and_a_finalizer_is_freed_whole() -> None:
    """A subclass adds what the value type's own dealloc does not know of (``__dict__``,
    ``__del__``): CPython's dealloc clears those first, then calls the base's."""
    finalized: list[str] = []

    class Tagged(Vector2):
        tag: str
        held: Held

        def __del__(self) -> None:
            finalized.append(self.tag)

    gc.collect()
    before = sys.getrefcount(Tagged), sys.getrefcount(Vector2)
    v: Any = Tagged(1, 2)
    v.tag = "t"
    held = Held()
    v.held = held
    alive = weakref.ref(held)
    assert tuple(v) == (1.0, 2.0)
    del v, held
    assert finalized == ["t"] and alive() is None
    assert (sys.getrefcount(Tagged), sys.getrefcount(Vector2)) == before


def test_values_made_from_freed_ones_are_whole_new_values() -> None:
    """The compiled build keeps a freed value's memory for the next one of its size, whatever
    its class: each new one has its own class, items, hash and GC state, and one whose
    building fails midway frees only what it was given."""
    for _ in range(3):
        freed = [Vector2(i, -i) for i in range(100)] + [Vector2i(i, i) for i in range(100)]
        del freed
        made = [Vector2i(i, 2 * i) for i in range(100)] + [Vector2(i, 0.5) for i in range(100)]
        assert [type(v) for v in made] == [Vector2i] * 100 + [Vector2] * 100
        assert made[7] == Vector2i(7, 14) and type(made[7].y) is int
        assert made[107] == Vector2(7.0, 0.5) and type(made[107].x) is float
        pure = constructors.PURE["Vector2.__new__"](Vector2, 7, 0.5)
        assert hash(made[107]) == hash(pure) and {made[107]: 1}[pure] == 1
        assert not any(gc.is_tracked(v) for v in made) or PURE_FORCED
        del made
        text: Any = "not a number"
        nothing: Any = None
        with pytest.raises(ValueError):
            Vector2(1.0, text)
        with pytest.raises(TypeError):
            Vector3(1.0, 2.0, nothing)
    assert Vector2(3, 4) == Vector2(x=3.0, y=4.0)


@pytest.mark.parametrize("cls", REALS + INTS, ids=lambda cls: cls.__name__)
def test_calling_the_class_with_many_arguments_fails_as_the_python_new(cls: type) -> None:
    """The class's compiled call reads its arguments in place, however many: too many
    positional or unknown keywords are the TypeError the Python ``__new__`` raises."""
    pure, _ = twins(cls)
    many: list[Any] = list(range(20))
    named = {f"k{i}": i for i in range(20)}
    for args, kwargs in (
        (many, {}),
        ([], named),
        (many[:1], {**named, "x": 1}),
        (many[:2], {"x": 1}),
    ):
        assert outcome(lambda c, *a, **k: c(*a, **k), cls, args, kwargs) == outcome(
            pure, cls, args, kwargs
        )
        assert outcome(lambda c, *a, **k: c(*a, **k), cls, args, kwargs)[0] == "TypeError"
