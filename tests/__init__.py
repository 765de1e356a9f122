"""gdvariant's tests: one folder per package folder of src/gdvariant (values/, engines/,
binary/, text/, json/, files/, net/, cli/, replication/, multiplayer/), the top-level modules'
tests at the top, live/ (the tests that run the real engines, beside their GDScript), docs/,
examples/ and benchmarks/ (what the repository's other folders promise), and support/ (the
helpers, imported as ``tests.support.NAME`` by the tests, tools/, benchmarks/ and fuzz/).
"""
