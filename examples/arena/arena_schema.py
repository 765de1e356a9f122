"""The networked state of a small top-down arena: players and the shots they fire.

Used by the arena example (``arena_server.py``) and by ``gdvariant schema explain`` /
``gdvariant schema gdscript``; the client's decoder is generated from it.
"""

from __future__ import annotations

from gdvariant.replication import (
    Angle,
    Bool,
    Coord,
    Embed,
    EntityRef,
    NetClass,
    Prop,
    Quant,
    Str,
    UInt,
    Vec2,
)


class Body(NetClass, table="DT_Body", abstract=True):
    """Anything that moves on the arena floor (2,048 units square, 1/16 unit steps)."""

    position = Prop(Vec2(Coord(11, 4)), hot=True)
    velocity = Vec2(Quant(-1024.0, 1024.0, 13))  # shots fly at 600 units a second


class Loadout(NetClass, table="DT_Loadout", abstract=True):
    """What only the player who owns it needs to see."""

    ammo = UInt(6)
    reloading = Bool()


class Player(Body, table="DT_Player"):
    heading = Prop(Angle(10, degrees=True), hot=True)
    health = Prop(UInt(7), hot=True)
    team = UInt(1)
    name = Str(24)
    loadout = Embed(Loadout, audience="owner")


class Shot(Body, table="DT_Shot"):
    shooter = EntityRef()
    heat = Prop(Quant(0.0, 1.0, 6), priority=200)
