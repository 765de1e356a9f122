extends Node
## Joins a SceneMultiplayer server and prints what happens, one event per line, for the test
## to compare with what the server saw. The URL picks the transport (join.gd): ws://HOST:PORT
## or enet://HOST:PORT.
##
## Arguments (after --): URL ROLE SEED COUNT. Every role authenticates with "letmein:ROLE";
## the server rejects any other token.
##   raw      sends COUNT random RAW payloads (RandomNumberGenerator seeded with SEED, the
##            last one 65534 bytes: a 65535-byte message) and prints each one it gets.
##   garbage  once another client is announced, sends bytes that are no SceneMultiplayer
##            packet straight through the MultiplayerPeer.
##   reject   authenticates with a wrong token.
##   silent   never authenticates (and waits longer than the 12 seconds for it).
##   calls    only answers RPCs (calls.gd), as every role does.
##   idle     only connects and prints what it gets.
## Quits when the server goes away, or after 12 seconds.

const BIGGEST := 65534
const Join := preload("res://join.gd")

var smp: SceneMultiplayer
var role: String
var seed_value: int
var count: int


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	role = args[1]
	seed_value = int(args[2])
	count = int(args[3])
	smp = multiplayer as SceneMultiplayer
	var calls: Node = preload("res://calls.gd").new()
	calls.name = "Calls"
	add_child(calls)
	if role == "silent":  # never authenticates: only the server's auth timeout ends it
		smp.auth_timeout = 60.0
	else:
		# through a lossy link (tests/live/netsim) a lost handshake packet costs ENet's
		# resend backoff, which can pass Godot's default 3 s before our token arrives
		smp.auth_timeout = 10.0
	smp.auth_callback = _on_auth
	smp.peer_authenticating.connect(_on_authenticating)
	smp.peer_authentication_failed.connect(_quit_with.bind("AUTH_FAILED"))
	smp.connected_to_server.connect(_on_connected)
	smp.connection_failed.connect(_quit_with.bind(0, "CONNECTION_FAILED"))
	smp.server_disconnected.connect(_quit_with.bind(0, "SERVER_DISCONNECTED"))
	smp.peer_connected.connect(_on_peer_connected)
	smp.peer_disconnected.connect(func(id): print("PEER_DISCONNECTED ", id))
	smp.peer_packet.connect(func(id, data): print("GOT %d %s" % [id, data.hex_encode()]))
	var peer := Join.peer_for(args[0])
	if peer == null:
		get_tree().quit(2)
		return
	smp.multiplayer_peer = peer
	get_tree().create_timer(12.0).timeout.connect(_quit_with.bind(0, "TIMEOUT"))


func _on_authenticating(id: int) -> void:
	if role == "silent":
		return
	var token := "letmein:" + role if role != "reject" else "wrong"
	smp.send_auth(id, token.to_utf8_buffer())


func _on_auth(id: int, data: PackedByteArray) -> void:
	print("AUTH_REPLY ", data.get_string_from_utf8())
	smp.complete_auth(id)


func _on_connected() -> void:
	print("ID ", multiplayer.get_unique_id())
	if role != "raw":
		return
	var rng := RandomNumberGenerator.new()
	rng.seed = seed_value
	for i in count:
		var size := BIGGEST if i == count - 1 else rng.randi_range(1, 300)
		var data := PackedByteArray()
		data.resize(size)
		for j in size:
			data[j] = rng.randi_range(0, 255)
		print("SENT ", data.hex_encode())
		smp.send_bytes(data, 1)


func _on_peer_connected(id: int) -> void:
	print("PEER_CONNECTED ", id)
	if role == "garbage" and id != 1:
		smp.multiplayer_peer.put_packet(PackedByteArray([0xFF, 0x13, 0x37]))
		print("GARBAGE_SENT")


func _quit_with(_id: int, what: String) -> void:
	print(what)
	get_tree().quit()
