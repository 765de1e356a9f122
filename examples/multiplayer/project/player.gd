extends Node2D
## One player, spawned by the server for each peer and named by its id. Its synchronizer
## (player.tscn, written from game_server.py's Player class) syncs position ALWAYS and
## display_name ON_CHANGE.

var display_name := ""


func _ready() -> void:
	print("%s joined (peer %s)" % [display_name, name])


## A client asks to move its own player; the server applies it, and the synchronizer
## shows it to everyone.
@rpc("any_peer", "unreliable_ordered")
func move(pos: Vector2) -> void:
	if multiplayer.is_server() and multiplayer.get_remote_sender_id() == str(name).to_int():
		position = pos
