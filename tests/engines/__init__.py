"""Tests of gdvariant._engines: every engine difference as data."""
