extends Node
## The RPCs of tests/live/multiplayer/test_snapshots.py, on the connection the snapshots use.


## The server calls it; the client answers with n + 1.
@rpc("authority", "call_remote", "reliable")
func ping(n: int) -> void:
	pong.rpc_id(1, n + 1)


@rpc("any_peer", "call_remote", "reliable")
func pong(_n: int) -> void:
	pass


## thing.gd tells the server it was spawned, with the label its spawn state gave it.
@rpc("any_peer", "call_remote", "reliable")
func spawned(_node_name: String, _label: String) -> void:
	pass


@rpc("authority", "call_remote", "reliable")
func finish() -> void:
	get_tree().quit()
