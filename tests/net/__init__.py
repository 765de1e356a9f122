"""Tests of gdvariant._net: framing and what every server shares."""
