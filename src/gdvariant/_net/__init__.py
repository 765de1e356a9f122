"""Values on a socket, without I/O, and what every server shares.

``framing`` (Godot's three framings, their limits, ``WireFormat`` and the sans-I/O
``StreamDecoder``), ``outbox`` (what may wait for a peer that does not read), ``peerlog`` (log
lines a client cannot flood), ``ws_connections`` (``websockets`` connections that report
each read) and ``ws_server`` (a WebSocket server connection on ``websockets``' sans-I/O
protocol). The adapters that do the I/O are public modules: ``gdvariant.asyncio``,
``gdvariant.sync``, ``gdvariant.websocket``, and ``gdvariant.multiplayer``'s transports.
"""
