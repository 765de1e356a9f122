"""Tests of gdvariant.replication."""
