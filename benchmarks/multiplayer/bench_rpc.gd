extends Node
## The RPC round trip of the benchmark: a client calls ping(seq) on the server, which
## answers pong(seq) to that client alone.


@rpc("any_peer")
func ping(seq: int) -> void:
	pong.rpc_id(multiplayer.get_remote_sender_id(), seq)


@rpc
func pong(seq: int) -> void:
	get_parent().ponged(seq)
