"""The networked state of the open world: wanderers roaming it and the players' avatars.

Used by the world example (``game.py``) and its Godot client, whose decoder
(client/world_decoder.gd) is generated from it.
"""

from __future__ import annotations

from gdvariant.replication import Coord, NetClass, Prop, Str, UInt, Vec2

#: The world spans -HALF..HALF units on both axes: 4,000 units square, some five screens of
#: 1,280 x 720 pixels across at one unit a pixel.
HALF = 2000.0


class Body(NetClass, table="DT_WorldBody", abstract=True):
    """Anything with a place in the world (1/16 unit steps, clamped to +-2,049 units)."""

    position = Prop(Vec2(Coord(11, 4, clamp=True)), hot=True)
    health = Prop(UInt(7), hot=True)


class Wanderer(Body, table="DT_Wanderer"):
    """A creature walking about on its own: something to see and to shoot at."""


class Avatar(Body, table="DT_Avatar"):
    """A player's avatar, steered by its client's ``move`` RPCs."""

    nickname = Str(24)
    score = UInt(16)
