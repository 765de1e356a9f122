"""3x3 matrices as nine reals, row by row, as Godot's ``Basis`` holds them: the products,
inverse and axis-angle rotation that ``Basis``, ``Transform3D`` and ``Vector3.rotated`` share.
Formulas: Godot 4.6's ``core/math/basis.h`` and ``basis.cpp``; each step rounded as in
:mod:`.reals`."""

from __future__ import annotations

from .reals import UNIT_EPSILON, Reals, cos, div, sin

__all__ = [
    "Rows",
    "Three",
    "axis_angle",
    "cofactor",
    "dot3",
    "inverse",
    "times",
    "transposed",
    "xform",
    "xform_inv",
]

#: A basis as nine reals, row by row.
Rows = tuple[float, ...]
Three = tuple[float, ...]


def dot3(r: Reals, a0: float, a1: float, a2: float, b: Three) -> float:
    one = r.one
    return one(one(one(a0 * b[0]) + one(a1 * b[1])) + one(a2 * b[2]))


def xform(r: Reals, m: Rows, v: Three) -> Three:
    """``Basis::xform``: each row dotted with v."""
    return (
        dot3(r, m[0], m[1], m[2], v),
        dot3(r, m[3], m[4], m[5], v),
        dot3(r, m[6], m[7], m[8], v),
    )


def xform_inv(r: Reals, m: Rows, v: Three) -> Three:
    """``Basis::xform_inv`` (and ``tdotx/y/z``): each column dotted with v."""
    return (
        dot3(r, m[0], m[3], m[6], v),
        dot3(r, m[1], m[4], m[7], v),
        dot3(r, m[2], m[5], m[8], v),
    )


def times(r: Reals, m: Rows, n: Rows) -> Rows:
    """``m * n``: row i of the product is ``(n.tdotx(row i), n.tdoty(...), n.tdotz(...))``."""
    out: list[float] = []
    for i in (0, 3, 6):
        out.extend(xform_inv(r, n, (m[i], m[i + 1], m[i + 2])))
    return tuple(out)


def cofactor(r: Reals, m: Rows, r1: int, c1: int, r2: int, c2: int) -> float:
    one = r.one
    return one(one(m[r1 * 3 + c1] * m[r2 * 3 + c2]) - one(m[r1 * 3 + c2] * m[r2 * 3 + c1]))


def inverse(r: Reals, m: Rows) -> Rows | None:
    """``Basis::invert`` by cofactors; None for a singular basis (Godot's debug builds print an
    error and leave it unchanged)."""
    one = r.one
    co = (cofactor(r, m, 1, 1, 2, 2), cofactor(r, m, 1, 2, 2, 0), cofactor(r, m, 1, 0, 2, 1))
    det = dot3(r, m[0], m[1], m[2], co)
    if det == 0:
        return None
    s = one(div(1.0, det))
    rest = [(0, 2, 2, 1), (0, 1, 1, 2), (0, 0, 2, 2), (0, 2, 1, 0), (0, 1, 2, 0), (0, 0, 1, 1)]
    c = [cofactor(r, m, *ix) for ix in rest]
    values = (co[0], c[0], c[1], co[1], c[2], c[3], co[2], c[4], c[5])
    return tuple(one(v * s) for v in values)


def transposed(m: Rows) -> Rows:
    return (m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8])


def axis_angle(r: Reals, axis: Three, angle: float) -> Rows | None:
    """``Basis(axis, angle)``: the rotation by ``angle`` radians about ``axis``; None when the
    axis is not normalized (Godot's debug builds print an error and keep the identity)."""
    one = r.one
    x, y, z = axis
    squared = one(one(one(x * x) + one(y * y)) + one(z * z))
    if not (squared == 1 or abs(one(squared - 1.0)) < one(UNIT_EPSILON)):
        return None
    c, s = one(cos(angle)), one(sin(angle))
    t = one(1.0 - c)
    xx, yy, zz = one(x * x), one(y * y), one(z * z)

    def diagonal(sq: float) -> float:
        return one(sq + one(c * one(1.0 - sq)))

    def pair(a: float, b: float, c_: float) -> tuple[float, float]:
        """``(a * b * t - c_ * sine, a * b * t + c_ * sine)``."""
        abt, cs = one(one(a * b) * t), one(c_ * s)
        return one(abt - cs), one(abt + cs)

    xy_minus, xy_plus = pair(x, y, z)  # rows[0][1], rows[1][0]
    xz_minus, xz_plus = pair(x, z, y)  # rows[2][0], rows[0][2]
    yz_minus, yz_plus = pair(y, z, x)  # rows[1][2], rows[2][1]
    return (
        diagonal(xx), xy_minus, xz_plus,
        xy_plus, diagonal(yy), yz_minus,
        xz_minus, yz_plus, diagonal(zz),
    )  # fmt: skip
