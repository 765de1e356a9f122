"""Tests of gdvariant._text: Godot's text syntax."""
