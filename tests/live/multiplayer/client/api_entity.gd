extends Node2D
## A spawned entity of the API test. Its synchronizer (api_entity.tscn) is written by
## gdvariant.multiplayer.scene_tscn from EntityState in tests/support/multiplayer_api_scene.py:
## position and spin ALWAYS, hp and label ON_CHANGE, all four in the spawn state.

var spin := 0.0
var hp := 0
var label := ""


func _ready() -> void:
	print("READY %s %s" % [name, _hex([position, spin, hp, label])])
	var sync := $MultiplayerSynchronizer as MultiplayerSynchronizer
	sync.synchronized.connect(func(): print("SYNC %s %s" % [name, _hex([position, spin])]))
	sync.delta_synchronized.connect(func(): print("DELTA %s %s" % [name, _hex([hp, label])]))


## Called by the server on this spawned node; a client answers with n + 1.
@rpc("any_peer")
func poke(n: int) -> void:
	print("POKE %s %d" % [name, n])
	if not multiplayer.is_server():
		poke.rpc_id(1, n + 1)


func _hex(values: Array) -> String:
	return var_to_bytes(values).hex_encode()
