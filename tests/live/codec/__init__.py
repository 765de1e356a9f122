"""The codec against Godot 4.6, 3.6 and 3.2.3, through the oracle scripts beside these tests."""
