"""4x4 matrices as four columns of four reals, as Godot's ``Projection`` holds them: the
inverse by Gaussian elimination with partial pivoting, in the order of Godot 4.6's
``Projection::invert`` (``core/math/projection.cpp``; the engine's comment credits Mesa's
``util_invert_mat4x4``), each step rounded as in :mod:`.reals`."""

from __future__ import annotations

from collections.abc import Sequence

from .reals import Reals, div

__all__ = ["Columns4", "inverse"]

#: A 4x4 matrix as four columns of four reals (``c[column][row]``).
Columns4 = tuple[tuple[float, ...], ...]


def _pivot(rows: list[list[float]], k: int) -> None:
    """Bring the row (from ``k`` on) with the largest ``|row[k]|`` up, swapping neighbours
    from the bottom as Godot does (a NaN never wins a comparison)."""
    for i in range(3, k, -1):
        if abs(rows[i][k]) > abs(rows[i - 1][k]):
            rows[i], rows[i - 1] = rows[i - 1], rows[i]


def _eliminate(r: Reals, rows: list[list[float]], k: int) -> None:
    """Subtract multiples of row ``k`` from the rows below it. Of the right-hand half, a zero
    entry of row ``k`` is skipped (Godot's ``if (s != 0)``), except in the last step."""
    one = r.one
    pivot = rows[k]
    factors = [one(div(rows[i][k], pivot[k])) for i in range(k + 1, 4)]
    for j in range(k + 1, 8):
        s = pivot[j]
        if j >= 4 and k < 2 and s == 0:
            continue
        for m, i in zip(factors, range(k + 1, 4), strict=True):
            rows[i][j] = one(rows[i][j] - one(m * s))


def inverse(r: Reals, c: Sequence[Sequence[float]]) -> Columns4 | None:
    """The inverse of the matrix with columns ``c``, or None where Godot's elimination meets
    a zero pivot (the engine prints an error and leaves the matrix as it was)."""
    one = r.one
    rows = [[c[0][i], c[1][i], c[2][i], c[3][i], 0.0, 0.0, 0.0, 0.0] for i in range(4)]
    for i in range(4):
        rows[i][4 + i] = 1.0
    for k in range(3):
        _pivot(rows, k)
        if rows[k][k] == 0:
            return None
        _eliminate(r, rows, k)
    r0, r1, r2, r3 = rows
    if r3[3] == 0:
        return None
    s = one(div(1.0, r3[3]))
    for j in range(4, 8):
        r3[j] = one(r3[j] * s)
    for k in (2, 1, 0):
        _back(r, rows, k)
    return tuple(tuple(row[4 + j] for row in (r0, r1, r2, r3)) for j in range(4))


def _back(r: Reals, rows: list[list[float]], k: int) -> None:
    """One back-substitution step: row ``k`` loses its multiple of the solved row below it
    and is divided by its pivot, and the rows above lose theirs of the solved row, in
    Godot's order and rounding."""
    one = r.one
    row, solved = rows[k], rows[k + 1]
    m = row[k + 1]
    s = one(div(1.0, row[k]))
    for j in range(4, 8):
        row[j] = one(s * one(row[j] - one(solved[j] * m)))
    for other in rows[:k]:
        m = other[k + 1]
        for j in range(4, 8):
            other[j] = one(other[j] - one(solved[j] * m))
