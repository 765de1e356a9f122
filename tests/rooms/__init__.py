"""Tests of gdvariant.rooms."""
