"""Tests of gdvariant.replication.gdscript, the generated GDScript decoder (its runs in Godot
are in tests/live/replication/).
"""
