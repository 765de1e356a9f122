extends Node
## The client of tests/live/multiplayer/test_snapshots.py: a stock ENetMultiplayerPeer or
## WebSocketMultiplayerPeer joins our SceneMultiplayer server, and receiver.gd (written by
## gdvariant.multiplayer.snapshots.receiver_script) applies the replication snapshots that
## come through multiplayer.peer_packet with decoder.gd (gdscript.generate) and acks them.
## After each snapshot applied, the state reached goes back to the server in a RAW packet of
## the game's own; the game's RAW packets from the server come back too. rpc.gd and thing.gd
## play the RPCs and the spawn on the same connection.
##
## Arguments: URL (enet://host:port or ws://host:port) HISTORY. Our RAW packets (reliable):
##   "R" u32 tick applied, u32 newest tick held, var_to_bytes(decoder.sorted_state())
##   "E" the decoder's error        "G" a game RAW packet from the server, echoed

const REPORT := 0x52
const ERROR := 0x45
const ECHO := 0x47

var decoder: Object


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	var url: String = args[0]
	var peer: MultiplayerPeer
	var error: Error
	if url.begins_with("enet://"):
		var where := url.trim_prefix("enet://").split(":")
		var enet := ENetMultiplayerPeer.new()
		error = enet.create_client(where[0], int(where[1]))
		peer = enet
	else:
		var ws := WebSocketMultiplayerPeer.new()
		error = ws.create_client(url)
		peer = ws
	if error != OK:
		printerr("cannot connect to %s: %s" % [url, error_string(error)])
		get_tree().quit(1)
		return
	multiplayer.multiplayer_peer = peer
	multiplayer.server_disconnected.connect(get_tree().quit)
	decoder = load("res://decoder.gd").new()
	decoder.history = int(args[1])
	var receiver: Node = load("res://receiver.gd").new()
	receiver.name = "Receiver"
	receiver.decoder = decoder
	receiver.applied.connect(_on_applied)
	receiver.rejected.connect(_on_rejected)
	receiver.game_packet.connect(_on_game_packet)
	add_child(receiver)


func _on_applied(tick: int) -> void:
	var out := PackedByteArray([REPORT, 0, 0, 0, 0, 0, 0, 0, 0])
	out.encode_u32(1, tick)
	out.encode_u32(5, decoder.newest_tick)
	out.append_array(var_to_bytes(decoder.sorted_state()))
	multiplayer.send_bytes(out, 1, MultiplayerPeer.TRANSFER_MODE_RELIABLE)


func _on_rejected(message: String) -> void:
	var out := PackedByteArray([ERROR])
	out.append_array(message.to_utf8_buffer())
	multiplayer.send_bytes(out, 1, MultiplayerPeer.TRANSFER_MODE_RELIABLE)


func _on_game_packet(id: int, packet: PackedByteArray) -> void:
	var out := PackedByteArray([ECHO])
	out.append_array(packet)
	multiplayer.send_bytes(out, id, MultiplayerPeer.TRANSFER_MODE_RELIABLE)
