extends Node
## The base of api_rpc.gd: its @rpc functions join the derived script's in one sorted list.
## hey() has no annotation: _init makes it a node-level RPC with rpc_config, which the
## server reads from here (gdvariant.multiplayer.read_script_rpcs).


func _init() -> void:
	rpc_config(&"hey", {
		"rpc_mode": MultiplayerAPI.RPC_MODE_AUTHORITY,
		"transfer_mode": MultiplayerPeer.TRANSFER_MODE_RELIABLE,
		"call_local": true,
		"channel": 1,
	})


@rpc("any_peer")
func checkpoint(round_number: int) -> void:
	print("CHECKPOINT ", round_number)
	if not multiplayer.is_server():
		checkpoint.rpc_id(1, round_number)


@rpc
func authority_only() -> void:
	print("AUTHORITY_ONLY")


@rpc("authority", "call_local", "unreliable_ordered", 2)
func finish() -> void:
	print("FINISH")
	if not multiplayer.is_server():  # a Godot server waits for the client to leave (api.gd)
		get_tree().quit()


func hey() -> void:
	print("HEY")
