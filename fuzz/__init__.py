"""Coverage-guided fuzz targets (atheris), run by hand as modules from the repository root:
``python -m fuzz.NAME`` (see README.md here)."""
