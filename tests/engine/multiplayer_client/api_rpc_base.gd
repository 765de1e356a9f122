extends Node
## The base of api_rpc.gd: its @rpc functions join the derived script's in one sorted list.
## hey() has no annotation: api.gd makes it a node-level RPC with rpc_config.


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
