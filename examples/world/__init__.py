"""The open world: relevancy, interpolation and a lag-compensated hit-scan weapon over ENet,
with its Godot 4 client project (client/). Start it with ``python -m examples.world``."""
