extends Node
## The node the server spawns (thing.tscn, written by gdvariant.multiplayer.scene_tscn): its
## label comes in the spawn state, before _ready, which reports it to the server.

var label := ""


func _ready() -> void:
	get_node("/root/Main/Rpc").spawned.rpc_id(1, str(name), label)
