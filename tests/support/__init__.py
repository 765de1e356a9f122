"""What the tests share, and tools/, benchmarks/ and fuzz/ import (``from tests.support import
engines``): the real engines, the codec cores and assemblers, random values and bytes,
mutations, the engine's descriptions read back, network sessions, hostile clients, replication
worlds, multiplayer fakes and recorders, and the rule that a run leaves the machine as it was.
Importing this package imports none of them.
"""
