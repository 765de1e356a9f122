extends Node2D
## A spawned entity of the API test. Its synchronizer (api_entity.tscn) is written by
## gdvariant.multiplayer.scene_tscn from EntityState in tests/multiplayer_api_scene.py:
## position and spin ALWAYS, hp and label ON_CHANGE, all four in the spawn state.

var spin := 0.0
var hp := 0
var label := ""


func _ready() -> void:
	print("READY %s %s" % [name, _hex([position, spin, hp, label])])
	var sync := $MultiplayerSynchronizer as MultiplayerSynchronizer
	sync.synchronized.connect(func(): print("SYNC %s %s" % [name, _hex([position, spin])]))
	sync.delta_synchronized.connect(func(): print("DELTA %s %s" % [name, _hex([hp, label])]))


func _hex(values: Array) -> String:
	return var_to_bytes(values).hex_encode()
