extends Node
## RPCs both ways, on the node Main/Calls. Each call the server makes is printed ("CALL name
## var_to_bytes(args) as hex") and sent straight back with the same arguments and transfer
## mode to the matching *_echo method. Roles "raw" and "calls" also call "relayed" on every
## other client the server announces (relayed through the server), which prints
## "RELAYED sender hex". The methods are variadic, so one method takes 0 to 8 arguments.


func _ready() -> void:
	multiplayer.peer_connected.connect(_on_peer_connected)


@rpc("authority", "call_remote", "reliable")
func reliable(...args: Array) -> void:
	_echo(&"reliable", args)


@rpc("authority", "call_remote", "unreliable")
func unreliable(...args: Array) -> void:
	_echo(&"unreliable", args)


@rpc("any_peer", "call_remote", "reliable")
func reliable_echo(...args: Array) -> void:
	pass


@rpc("any_peer", "call_remote", "unreliable")
func unreliable_echo(...args: Array) -> void:
	pass


@rpc("any_peer", "call_remote", "reliable")
func relayed(...args: Array) -> void:
	print("RELAYED %d %s" % [multiplayer.get_remote_sender_id(), var_to_bytes(args).hex_encode()])


func _echo(method: StringName, args: Array) -> void:
	print("CALL %s %s" % [method, var_to_bytes(args).hex_encode()])
	callv(&"rpc_id", [1, StringName(method + "_echo")] + args)


func _on_peer_connected(id: int) -> void:
	var role: String = OS.get_cmdline_user_args()[1]
	if id != 1 and role in ["raw", "calls"]:
		rpc_id(id, &"relayed", multiplayer.get_unique_id(), "hi " + role)
