"""Scripts that make the committed vectors and examples, and run the build, the tests and the
engines (see README.md here); run the Python ones as modules from the repository root:
``python -m tools.NAME``."""
