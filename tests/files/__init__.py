"""Tests of gdvariant._files: store_var records, save files, FastLZ, detect."""
