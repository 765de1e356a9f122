"""Live tests of gdvariant.rooms with real Godot 4.6 clients."""
