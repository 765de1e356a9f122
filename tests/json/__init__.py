"""Tests of gdvariant._json: the tagged JSON form and Godot's JSON dialect."""
