# Types for the parts of pyenet (the `enet` module of pyenet-vladfi) that gdvariant uses.
# pyenet ships no type information; these follow its enet.pyx.

from collections.abc import Callable

EVENT_TYPE_NONE: int
EVENT_TYPE_CONNECT: int
EVENT_TYPE_DISCONNECT: int
EVENT_TYPE_RECEIVE: int
PACKET_FLAG_RELIABLE: int
PACKET_FLAG_UNSEQUENCED: int
PACKET_FLAG_NO_ALLOCATE: int
PACKET_FLAG_UNRELIABLE_FRAGMENT: int
PEER_STATE_CONNECTED: int

class Address:
    host: str | None
    port: int
    def __init__(self, host: str | bytes | None, port: int) -> None: ...

class Socket:
    def fileno(self) -> int: ...

class Packet:
    def __init__(self, data: bytes | None = None, flags: int = 0) -> None: ...
    @property
    def data(self) -> bytes: ...
    @property
    def flags(self) -> int: ...
    def set_free_callback(self, func: Callable[[], object]) -> None: ...

class Peer:
    @property
    def incomingPeerID(self) -> int: ...  # noqa: N802 - pyenet's name
    @property
    def channelCount(self) -> int: ...  # noqa: N802 - pyenet's name
    @property
    def state(self) -> int: ...
    @property
    def address(self) -> Address: ...
    # the packet throttle (enet_peer_throttle_configure's values, for what this side sends)
    packetThrottle: int  # noqa: N815 - pyenet's name
    packetThrottleInterval: int  # noqa: N815 - pyenet's name
    packetThrottleAcceleration: int  # noqa: N815 - pyenet's name
    packetThrottleDeceleration: int  # noqa: N815 - pyenet's name
    def send(self, channelID: int, packet: Packet) -> int: ...  # noqa: N803 - pyenet's name
    def reset(self) -> None: ...
    def disconnect(self, data: int = 0) -> None: ...
    def disconnect_later(self, data: int = 0) -> None: ...
    def disconnect_now(self, data: int = 0) -> None: ...

class Event:
    @property
    def type(self) -> int: ...
    @property
    def peer(self) -> Peer: ...
    @property
    def channelID(self) -> int: ...  # noqa: N802 - pyenet's name
    @property
    def data(self) -> int: ...
    @property
    def packet(self) -> Packet: ...

class Host:
    def __init__(
        self,
        address: Address | None = None,
        peerCount: int = 0,  # noqa: N803 - pyenet's name
        channelLimit: int = 0,  # noqa: N803 - pyenet's name
        incomingBandwidth: int = 0,  # noqa: N803 - pyenet's name
        outgoingBandwidth: int = 0,  # noqa: N803 - pyenet's name
    ) -> None: ...
    @property
    def address(self) -> Address: ...
    @property
    def socket(self) -> Socket: ...
    @property
    def totalReceivedPackets(self) -> int: ...  # noqa: N802 - pyenet's name: UDP datagrams
    def connect(self, address: Address, channelCount: int, data: int = 0) -> Peer: ...  # noqa: N803
    def service(self, timeout: int, fast_drop: bool = False) -> Event | None: ...
    def check_events(self) -> Event: ...
    def flush(self) -> None: ...
