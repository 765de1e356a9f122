extends Node2D
## One synced entity: the server sets position = (tick, index) every tick (ALWAYS) and
## bumps hp once a second (ON_CHANGE). A client counts what arrives and checks the index.

var hp := 0


func _ready() -> void:
	if not multiplayer.is_server():
		var bench := get_node("/root/Bench")
		var sync := $MultiplayerSynchronizer as MultiplayerSynchronizer
		sync.synchronized.connect(func(): bench.synced(self))
		sync.delta_synchronized.connect(func(): bench.delta(self))
