"""The arena: a game on gdvariant.replication, with its Godot 4 client project (client/)."""
