"""``gdvariant netsim``: a UDP and TCP proxy that adds latency, jitter, loss, duplication,
reordering and a bandwidth cap between real clients and any server (gdvariant.netsim)."""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
from typing import Any

from ..netsim import Conditions, LinkStats, TcpProxy, UdpProxy
from ._common import command_parser
from ._signals import until_signalled

EXAMPLES = """\
  gdvariant netsim --udp 7000 --to 127.0.0.1:7001 --latency 50ms --loss 2%  # (until Ctrl-C)
  gdvariant netsim --tcp 7000 --to 127.0.0.1:7001 --rate 256kbit --stats  # (until Ctrl-C)
  gdvariant netsim --udp 7000 --tcp 7000 --to 127.0.0.1:7001 --loss 5% --burst 3  # (until Ctrl-C)
"""

_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_BITS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}  # a second, as tc counts
_BYTES = {"B": 1, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20}
_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
#: The options by help group: flag, metavar, default (kept as text, read by ``run``), help.
_OPTIONS: dict[str, list[tuple[str, str, str | None, str]]] = {
    "where": [
        ("--udp", "[HOST:]PORT", None, "listen for UDP here (ENet)"),
        ("--tcp", "[HOST:]PORT", None, "listen for TCP here (WebSocket)"),
        ("--to", "HOST:PORT", None, "the server (the same port for UDP and TCP)"),
    ],
    "conditions (each direction of each client)": [
        ("--latency", "TIME", "0", "one-way delay: 50ms, 0.05s (default 0)"),
        ("--jitter", "TIME", "0", "a uniform delay in +-TIME added, e.g. 10ms"),
        ("--loss", "PCT", "0", "packets lost, e.g. 2%%"),
        ("--burst", "N", None, "losses come in runs of N packets on average"),
        ("--dup", "PCT", "0", "packets duplicated, e.g. 0.5%%"),
        ("--reorder", "PCT", "0", "packets held back so that later ones overtake them"),
        ("--reorder-delay", "TIME", "20ms", "how long they are held back (default 20ms)"),
        ("--rate", "RATE", None, "bandwidth cap: 1mbit, 256kbit, 100kB (a second)"),
        ("--retransmit", "TIME", "200ms", "TCP: the delay a loss causes (default 200ms)"),
    ],
    "limits (each direction of each client, and clients)": [
        ("--queue-bytes", "SIZE", "256KiB", "bytes a link holds (default 256KiB)"),
        ("--queue-packets", "N", "1000", "packets a link holds (default 1000)"),
        ("--max-clients", "N", "256", "clients served at once (default 256)"),
    ],
    "the run": [("--seed", "SEED", "0", "the simulation's seed (default 0)")],
}


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "netsim",
        help="a UDP/TCP proxy that simulates latency, loss, reordering and a bandwidth cap",
        description=(
            "Listen on a local UDP and/or TCP port and forward every client to --to through "
            "simulated links, one per direction and client, each with the conditions given "
            "(latency is one way: a round trip gets it twice). TCP (a WebSocket, say) is never "
            "lost, duplicated or reordered: a loss there delays the stream by a retransmission "
            "(--retransmit). The same --seed and the same traffic give the same fates. Runs "
            "until Ctrl-C or SIGTERM."
        ),
        examples=EXAMPLES,
    )
    for title, options in _OPTIONS.items():
        group = parser.add_argument_group(title)
        for flag, metavar, default, text in options:
            group.add_argument(flag, metavar=metavar, default=default, help=text)
    group.add_argument("--stats", action="store_true", help="print the counts every second")
    parser.set_defaults(func=run)


def duration(text: str, name: str) -> float:
    """``50ms``, ``0.05s``, ``250us``; a bare number is milliseconds."""
    match = re.fullmatch(_NUMBER + r"\s*(us|ms|s)?", text.strip())
    if match is None:
        raise ValueError(f"--{name}: {text!r} is no duration (write 50ms or 0.05s)")
    return float(match[1]) * _SECONDS[match[2] or "ms"]


def percent(text: str, name: str) -> float:
    """``2%``, ``0.5%``; a bare number is a percentage too."""
    match = re.fullmatch(_NUMBER + r"\s*%?", text.strip())
    if match is None or float(match[1]) > 100:
        raise ValueError(f"--{name}: {text!r} is no percentage from 0 to 100 (write 2%)")
    return float(match[1]) / 100


def rate(text: str) -> float:
    """Bytes a second from ``1mbit``, ``256kbit`` (bits, as tc counts) or ``100kB``, ``1MiB``
    (bytes); a unit is required, ``/s`` optional."""
    match = re.fullmatch(_NUMBER + r"\s*([A-Za-z]+)(?:/s)?", text.strip())
    if match is not None and match[2].lower() in _BITS and float(match[1]) > 0:
        return float(match[1]) * _BITS[match[2].lower()] / 8
    if match is not None and match[2] in _BYTES and float(match[1]) > 0:
        return float(match[1]) * _BYTES[match[2]]
    raise ValueError(f"--rate: {text!r} is no rate (write 1mbit, 256kbit or 100kB)")


def count(text: str, name: str, *, units: bool = False) -> int:
    """A whole number >= 1 (``units``: or a size such as ``64KiB``)."""
    match = re.fullmatch(r"(\d+)\s*([A-Za-z]*)", text.strip())
    scale = _BYTES.get(match[2] or "B") if match is not None and units else 1
    if match is None or scale is None or (match[2] and not units) or int(match[1]) < 1:
        raise ValueError(f"--{name}: {text!r} is no {'size' if units else 'count'} >= 1")
    return int(match[1]) * scale


def address(text: str, name: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or a bare ``PORT`` (on 127.0.0.1)."""
    match = re.fullmatch(r"(?:\[([^\]]+)\]|([^:\s]*)):(\d+)|(\d+)", text.strip())
    port = int(match[3] or match[4]) if match is not None else -1
    if match is None or port > 65535:
        raise ValueError(f"--{name}: {text!r} is no address (write HOST:PORT or PORT)")
    return (match[1] or match[2] or "127.0.0.1"), port


def conditions(args: argparse.Namespace) -> Conditions:
    """The options' conditions; a bad one is a one-line ValueError naming its option."""
    burst = float(args.burst) if args.burst and re.fullmatch(_NUMBER, args.burst) else None
    if args.burst and (burst is None or not math.isfinite(burst) or burst < 1):
        raise ValueError(f"--burst: {args.burst!r} is no mean run length >= 1 (packets)")
    return Conditions(
        latency=duration(args.latency, "latency"),
        jitter=duration(args.jitter, "jitter"),
        loss=percent(args.loss, "loss"),
        burst=burst,
        duplicate=percent(args.dup, "dup"),
        reorder=percent(args.reorder, "reorder"),
        reorder_delay=duration(args.reorder_delay, "reorder-delay"),
        rate=rate(args.rate) if args.rate else None,
        retransmit=duration(args.retransmit, "retransmit"),
        max_bytes=count(args.queue_bytes, "queue-bytes", units=True),
        max_packets=count(args.queue_packets, "queue-packets"),
    )


def run(args: argparse.Namespace) -> int:
    if not (args.udp or args.tcp):
        raise ValueError("netsim: give --udp [HOST:]PORT and/or --tcp [HOST:]PORT to listen on")
    if not args.to:
        raise ValueError("netsim: give --to HOST:PORT, the server to forward to")
    target = address(args.to, "to")
    if target[1] == 0:
        raise ValueError("--to: the server's port cannot be 0")
    link = conditions(args)
    max_clients = count(args.max_clients, "max-clients")
    seed = args.seed.strip()
    asked = (("udp", args.udp), ("tcp", args.tcp))
    listen = {proto: address(text, proto) for proto, text in asked if text}
    return asyncio.run(
        until_signalled(
            lambda stop: _serve(stop, listen, target, link, seed, max_clients, args.stats)
        )
    )


async def _serve(
    stop: asyncio.Event,
    listen: dict[str, tuple[str, int]],
    target: tuple[str, int],
    link: Conditions,
    seed: str,
    max_clients: int,
    stats: bool,
) -> int:
    """Run the proxies until ``stop`` is set, then close them."""
    proxies: dict[str, UdpProxy | TcpProxy] = {}
    try:
        for proto, (host, port) in listen.items():
            kind = UdpProxy if proto == "udp" else TcpProxy
            proxy = proxies[proto] = kind(target, link, seed=seed, max_flows=max_clients)
            bound = await proxy.listen(host, port)
            print(f"netsim: {proto} {_show(bound)} -> {_show(target)}", file=sys.stderr)
        print(f"netsim: {_describe(link)}; seed {seed}; Ctrl-C stops", file=sys.stderr, flush=True)
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), 1.0)
            except TimeoutError:
                if stats:
                    for proto, proxy in proxies.items():
                        print(_counts(proto, proxy.flows, proxy.stats()), flush=True)
    finally:
        for proxy in proxies.values():
            await proxy.close()
    return 0


def _show(where: tuple[str, int]) -> str:
    host, port = where
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _describe(link: Conditions) -> str:
    rate = f"{link.rate * 8 / 1000:g} kbit/s" if link.rate else "no cap"
    burst = f" in bursts of {link.burst:g}" if link.burst else ""
    return (
        f"latency {link.latency * 1000:g} ms +- {link.jitter * 1000:g} ms, "
        f"loss {link.loss:.2%}{burst}, dup {link.duplicate:.2%}, reorder {link.reorder:.2%}, "
        f"rate {rate}"
    )


def _counts(proto: str, flows: int, total: LinkStats) -> str:
    return (
        f"{proto}: clients {flows} sent {total.sent} delivered {total.delivered} "
        f"lost {total.lost} overflowed {total.overflowed} duplicated {total.duplicated} "
        f"reordered {total.reordered} retransmitted {total.retransmitted} "
        f"queued {total.held_packets} ({total.held_bytes} bytes)"
    )
