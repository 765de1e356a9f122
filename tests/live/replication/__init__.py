"""The generated GDScript decoder in Godot 4.6, through the harnesses beside these tests."""
