"""The relay's game on Godot's high-level multiplayer, with its Godot 4 project (project/)."""
