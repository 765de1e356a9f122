"""A seeded network-condition simulator: latency, jitter, loss (independent or in bursts),
duplication, reordering and a bandwidth cap, for tests and as a proxy in front of any server.

:class:`Link` is the sans-I/O core (one direction of a link; the caller passes the time);
:class:`UdpProxy` and :class:`TcpProxy` put links between real clients and a server on the
asyncio event loop, and ``gdvariant netsim`` runs them from the command line. The same seed
and the same inputs give the same outputs. docs/netsim.md describes the model and its limits.
"""

from __future__ import annotations

from ._link import Conditions, Link, LinkStats
from ._tcp import TcpProxy
from ._udp import UdpProxy

__all__ = ["Conditions", "Link", "LinkStats", "TcpProxy", "UdpProxy"]
