"""The examples, run as modules from the repository root: ``python -m examples.relay.demo``,
``python -m examples.arena.arena_demo``, ``python -m examples.multiplayer.multiplayer_demo``."""
