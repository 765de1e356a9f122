"""Inline reads of single values for the generated decoder (``gdscript._value_reads``): the bit
budget each codec needs between two bounds checks, exact float constants, and failed checks
that hand over to a given expression (the fast record path's bail-out)."""

from __future__ import annotations

from gdvariant.replication import Coord, Str, UInt, VarInt, Vec3
from gdvariant.replication._codecs import ArrayOf
from gdvariant.replication.gdscript._lines import Writer
from gdvariant.replication.gdscript._value_reads import read_value, straight_bits


def test_straight_bits_per_codec() -> None:
    assert straight_bits(UInt(9)) == 9
    assert straight_bits(VarInt()) == 80  # at most 10 groups of 8 bits
    assert straight_bits(Str(32)) == 6  # the length; the byte run is checked before it
    assert straight_bits(Vec3(Coord(14, 5))) == 3 * (2 + 1 + 14 + 5)
    assert straight_bits(ArrayOf(UInt(9), 10)) == 4 + 9  # the length, then one element


def test_coord_scale_is_an_exact_float_literal() -> None:
    w = Writer()
    read_value(w, 1, Coord(14, 5), ("C", "x"))
    text = "\n".join(w.lines)
    assert "/ 32.0" in text and "float(32)" not in text  # 2**frac_bits <= 256: exact


def test_failed_check_names_the_property_or_bails_out() -> None:
    w = Writer()
    w.check_end(1, ("Pawn", "origin"))
    assert w.lines[-1] == '\t\treturn _bad(id, "Pawn", "origin", "packet truncated")'
    w.bail = "_recheck(buf, at, end, id, src.duplicate(), delta, c)"
    w.check_end(1, ("Pawn", "origin"))
    assert w.lines[-1] == "\t\treturn _recheck(buf, at, end, id, src.duplicate(), delta, c)"
