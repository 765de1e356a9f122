"""The documentation's GDScript recipe in Godot 4.6."""
