"""Tests against the real engines, each folder beside the GDScript it runs: codec/ (the oracle
scripts), multiplayer/ (a Godot game project and a Godot client project), replication/ (the
generated decoder's harnesses), docs/ (the recipe client's harness).
"""
