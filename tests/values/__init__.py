"""Tests of gdvariant._values: the value model."""
