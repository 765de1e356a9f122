extends Node
## The client's half of gdvariant.multiplayer.snapshots.SnapshotLink (written by
## receiver_script()): takes the server's replication snapshots from multiplayer.peer_packet,
## applies them with `decoder` (a decoder written by gdvariant.replication.gdscript.generate)
## and acknowledges the newest tick it holds with multiplayer.send_bytes, unreliable on
## CHANNEL. Every other RAW packet is the game's: it comes out of `game_packet`.
##
##     var receiver := preload("res://snapshot_receiver.gd").new()
##     receiver.decoder = preload("res://decoder.gd").new()
##     add_child(receiver)

## A snapshot was applied; the decoder's state is that of its newest tick.
signal applied(tick: int)
## A snapshot was refused (the decoder's last_error); the next full update mends it.
signal rejected(message: String)
## A RAW packet that is not a snapshot, as multiplayer.peer_packet gave it.
signal game_packet(id: int, packet: PackedByteArray)

## The first byte of a snapshot and of an ack (SnapshotLink's `tag`).
const TAG := 255
## The transfer channel acks go on (SnapshotLink's `channel`).
const CHANNEL := 1
const SERVER := 1

## The generated decoder the snapshots are applied with.
var decoder: Object
## Whether to acknowledge (off: every packet is a full update).
var acks := true
var _ack := PackedByteArray([TAG, 0, 0, 0, 0])


func _enter_tree() -> void:
	multiplayer.peer_packet.connect(_on_peer_packet)


func _exit_tree() -> void:
	multiplayer.peer_packet.disconnect(_on_peer_packet)


func _on_peer_packet(id: int, packet: PackedByteArray) -> void:
	if id != SERVER or packet.is_empty() or packet[0] != TAG:
		game_packet.emit(id, packet)
		return
	var tick: int = decoder.apply(packet.slice(1))
	if tick < 0:
		rejected.emit(decoder.last_error)
		return
	if acks:
		_ack.encode_u32(1, decoder.newest_tick)
		multiplayer.send_bytes(_ack, SERVER, MultiplayerPeer.TRANSFER_MODE_UNRELIABLE, CHANNEL)
	applied.emit(tick)
