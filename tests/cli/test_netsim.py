"""``gdvariant netsim`` (``gdvariant._cli.netsim``): the options read as written (durations,
percentages, rates, sizes, addresses), bad ones refused in one line with status 2, and the
command itself run in a process of its own: it forwards UDP and TCP with the conditions,
prints its counts, and stops cleanly on SIGINT and SIGTERM."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gdvariant._cli import build_parser, main
from gdvariant._cli.netsim import address, conditions, count, duration, percent, rate
from gdvariant.netsim import Conditions
from tests.support import processes
from tests.support.paths import ROOT


def test_the_option_values_read_as_written() -> None:
    assert duration("50ms", "x") == pytest.approx(0.05) and duration("0.25s", "x") == 0.25
    assert duration("250us", "x") == pytest.approx(0.00025) and duration("7", "x") == 0.007
    assert percent("2%", "x") == 0.02 and percent("0.5", "x") == 0.005
    assert rate("1mbit") == 125_000 and rate("256kbit/s") == 32_000 and rate("100kB") == 100_000
    assert rate("1MiB") == 2**20 and rate("8bit") == 1
    assert count("64KiB", "x", units=True) == 65536 and count("1000", "x") == 1000
    assert address("7000", "x") == ("127.0.0.1", 7000)
    assert address("[::1]:7000", "x") == ("::1", 7000)
    assert address("example.org:80", "x") == ("example.org", 80)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give --udp"),
        (["--udp", "7000"], "give --to"),
        (["--udp", "7000", "--to", "host"], "--to: 'host' is no address"),
        (["--udp", "7000", "--to", "host:0"], "--to: the server's port cannot be 0"),
        (["--tcp", "x:99999", "--to", "1.2.3.4:5"], "--tcp: 'x:99999' is no address"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--latency", "fast"], "--latency: 'fast'"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--loss", "101%"], "--loss: '101%'"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--rate", "1000"], "--rate: '1000' is no rate"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--burst", "0"], "--burst: '0'"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--loss", "60%", "--burst", "1"], "bursts"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--queue-bytes", "0"], "--queue-bytes: '0'"),
        (["--udp", "7000", "--to", "1.2.3.4:5", "--max-clients", "2k"], "--max-clients"),
    ],
)
def test_bad_options_get_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["netsim", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gdvariant: ") and message in err and err.count("\n") == 1, err


def test_the_options_become_conditions() -> None:
    argv = "netsim --udp 1 --to 2 --latency 50ms --jitter 10ms --loss 2% --burst 3 --dup 0.5%"
    argv += " --reorder 1% --rate 1mbit --queue-bytes 64KiB --queue-packets 50"
    args = build_parser().parse_args(argv.split())
    assert conditions(args) == Conditions(
        latency=0.05,
        jitter=0.01,
        loss=0.02,
        burst=3.0,
        duplicate=0.005,
        reorder=0.01,
        rate=125_000,
        max_bytes=65536,
        max_packets=50,
    )


@contextmanager
def netsim(*argv: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, int]]]:
    """``gdvariant netsim`` in a process of its own, once it is listening; the ports it bound
    by protocol."""
    command = [sys.executable, "-m", "gdvariant", "netsim", *argv]
    process = processes.watch(
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    )
    assert process.stderr is not None
    ports = {}
    for line in process.stderr:
        if found := re.match(r"netsim: (udp|tcp) 127\.0\.0\.1:(\d+) ->", line):
            ports[found[1]] = int(found[2])
        if "Ctrl-C stops" in line:
            break
    try:
        yield process, ports
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def udp_and_tcp() -> tuple[socket.socket, socket.socket]:
    """A UDP socket and a listening TCP socket on one port of 127.0.0.1 (as a server with
    ENet and WebSocket on one port number); a few tries, should the TCP port be taken."""
    for _ in range(20):
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        tcp = socket.socket()
        try:
            tcp.bind(udp.getsockname())
        except OSError:
            udp.close()
            tcp.close()
            continue
        tcp.listen()
        return udp, tcp
    raise AssertionError("no port free for both UDP and TCP")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_it_forwards_udp_and_tcp_prints_counts_and_stops_cleanly(signum: int) -> None:
    server, tcp = udp_and_tcp()
    with server, tcp:
        port = server.getsockname()[1]
        options = ["--latency", "5ms", "--dup", "100%", "--seed", "3", "--stats"]
        with netsim(
            "--udp", "127.0.0.1:0", "--tcp", "127.0.0.1:0", "--to", f"{port}", *options
        ) as (
            process,
            ports,
        ):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
                client.sendto(b"hello", ("127.0.0.1", ports["udp"]))
                server.settimeout(30)
                assert server.recvfrom(100)[0] == b"hello"
                assert server.recvfrom(100)[0] == b"hello"  # --dup 100%
            with socket.create_connection(("127.0.0.1", ports["tcp"]), timeout=30) as client:
                accepted, _ = tcp.accept()
                with accepted:
                    client.sendall(b"stream")
                    accepted.settimeout(30)
                    assert accepted.recv(100) == b"stream"  # never duplicated
            assert process.stdout is not None
            seen: dict[str, int] = {}
            while len(seen) < 2:
                line = process.stdout.readline()
                if found := re.match(r"(udp|tcp): clients \d+ sent (\d+) ", line):
                    seen[found[1]] = int(found[2])
            process.send_signal(signum)
            out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert "Traceback" not in err + out
