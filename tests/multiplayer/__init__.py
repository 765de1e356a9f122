"""Tests of gdvariant.multiplayer."""
