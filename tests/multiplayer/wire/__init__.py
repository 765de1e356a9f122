"""Tests of gdvariant.multiplayer.wire: SceneMultiplayer's packets."""
