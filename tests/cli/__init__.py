"""Tests of gdvariant._cli: the gdvariant command."""
