extends "res://api_rpc_base.gd"
## The RPC node of the API test (api.tscn): r0..r8 reliable and u0..u8 unreliable, any
## peer. A client prints what each call brought and calls the same method on the server
## with the same arguments; the server (a Godot one, when recording) only prints. The
## base script adds three more, which Godot numbers together with these.


@rpc("any_peer")
func r0() -> void:
	_got("r0", [])


@rpc("any_peer")
func r1(a) -> void:
	_got("r1", [a])


@rpc("any_peer")
func r2(a, b) -> void:
	_got("r2", [a, b])


@rpc("any_peer")
func r3(a, b, c) -> void:
	_got("r3", [a, b, c])


@rpc("any_peer")
func r4(a, b, c, d) -> void:
	_got("r4", [a, b, c, d])


@rpc("any_peer")
func r5(a, b, c, d, e) -> void:
	_got("r5", [a, b, c, d, e])


@rpc("any_peer")
func r6(a, b, c, d, e, f) -> void:
	_got("r6", [a, b, c, d, e, f])


@rpc("any_peer")
func r7(a, b, c, d, e, f, g) -> void:
	_got("r7", [a, b, c, d, e, f, g])


@rpc("any_peer")
func r8(a, b, c, d, e, f, g, h) -> void:
	_got("r8", [a, b, c, d, e, f, g, h])


@rpc("any_peer", "unreliable")
func u0() -> void:
	_got("u0", [])


@rpc("any_peer", "unreliable")
func u1(a) -> void:
	_got("u1", [a])


@rpc("any_peer", "unreliable")
func u2(a, b) -> void:
	_got("u2", [a, b])


@rpc("any_peer", "unreliable")
func u3(a, b, c) -> void:
	_got("u3", [a, b, c])


@rpc("any_peer", "unreliable")
func u4(a, b, c, d) -> void:
	_got("u4", [a, b, c, d])


@rpc("any_peer", "unreliable")
func u5(a, b, c, d, e) -> void:
	_got("u5", [a, b, c, d, e])


@rpc("any_peer", "unreliable")
func u6(a, b, c, d, e, f) -> void:
	_got("u6", [a, b, c, d, e, f])


@rpc("any_peer", "unreliable")
func u7(a, b, c, d, e, f, g) -> void:
	_got("u7", [a, b, c, d, e, f, g])


@rpc("any_peer", "unreliable")
func u8(a, b, c, d, e, f, g, h) -> void:
	_got("u8", [a, b, c, d, e, f, g, h])


func _got(method: String, args: Array) -> void:
	print("RPC %s %s" % [method, var_to_bytes(args).hex_encode()])
	if not multiplayer.is_server():
		callv("rpc_id", [1, method] + args)
