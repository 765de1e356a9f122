"""Benchmarks, run on demand (not tests) as modules from the repository root:
``python -m benchmarks.NAME`` (see README.md here)."""
