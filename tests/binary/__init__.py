"""Tests of gdvariant._binary: bytes <-> values, on both codec cores."""
