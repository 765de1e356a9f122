extends Node
## The scene of the server API test (tests/live/multiplayer/test_api.py): an RPC node
## (api_rpc.gd), a MultiplayerSpawner of api_entity.tscn and this script. Stock nodes only.
##
## Arguments (after --):
##   URL SECONDS [silent]
##                 join the server at URL (ws:// or enet://, join.gd), authenticate with
##                 "letmein" (or, silent, send nothing until the server gives up), make two
##                 calls the server must refuse, then print what arrives (the RPC node
##                 echoes every call back); quit on FINISH, when the server goes away or
##                 fails our authentication, or after SECONDS.
##   server PORT [visibility]
##                 be the Godot server of a golden recording: serve one client the same
##                 script of calls, spawns, changes and despawns as the Python test does
##                 (_play), or of visibility changes and custom spawns (_play_visibility),
##                 or of calls whose one argument is a PackedByteArray (_play_bytes).

const Join := preload("res://join.gd")

var smp: SceneMultiplayer
var silent := false
var script_name := "calls"
## what the visibility filter of _play_visibility answers
var shown := true


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	smp = multiplayer as SceneMultiplayer
	smp.auth_callback = _on_auth
	smp.peer_authenticating.connect(_on_authenticating)
	print("RPC_CONFIG ", JSON.stringify($Rpc.get_script().get_rpc_config()))
	print("NODE_RPC_CONFIG ", JSON.stringify($Rpc.get_node_rpc_config()))
	$Spawner.spawned.connect(func(node): print("SPAWNED ", node.name))
	$Spawner.despawned.connect(func(node): print("DESPAWNED ", node.name))
	$Spawner.spawn_function = _build
	if args[0] == "server":
		script_name = args[2] if args.size() > 2 else "calls"
		_serve(int(args[1]))
		return
	silent = args.size() > 2 and args[2] == "silent"
	if not silent:
		# through a lossy link (tests/live/netsim) a lost handshake packet costs ENet's
		# resend backoff, which can pass Godot's default 3 s before our token arrives
		smp.auth_timeout = 10.0
	smp.peer_authentication_failed.connect(func(_id): _quit_with("AUTH_FAILED"))
	smp.connected_to_server.connect(_on_connected)
	smp.connection_failed.connect(_quit_with.bind("CONNECTION_FAILED"))
	smp.server_disconnected.connect(_quit_with.bind("SERVER_DISCONNECTED"))
	var peer := Join.peer_for(args[0])
	if peer == null:
		_quit_with("CANNOT_CONNECT")
		return
	smp.multiplayer_peer = peer
	get_tree().create_timer(float(args[1])).timeout.connect(_quit_with.bind("TIMEOUT"))


func _on_authenticating(id: int) -> void:
	print("AUTHENTICATING ", id)
	if not silent:
		smp.send_auth(id, "letmein".to_utf8_buffer())


func _on_auth(id: int, data: PackedByteArray) -> void:
	print("AUTH ", data.get_string_from_utf8())
	smp.complete_auth(id)


func _on_connected() -> void:
	print("ID ", multiplayer.get_unique_id())
	$Rpc.authority_only.rpc_id(1)  # @rpc("authority"): the server must refuse it
	$Rpc.rpc_id(1, "r2", 1)  # one argument for a two-argument function: refused too


func _quit_with(what: String) -> void:
	print(what)
	get_tree().quit()


func _serve(port: int) -> void:
	var peer := WebSocketMultiplayerPeer.new()
	if peer.create_server(port) != OK:
		_quit_with("CANNOT_LISTEN")
		return
	smp.multiplayer_peer = peer
	var plays := {"visibility": _play_visibility, "bytes": _play_bytes}
	smp.peer_connected.connect(plays.get(script_name, _play))
	get_tree().create_timer(20.0).timeout.connect(_quit_with.bind("TIMEOUT"))


func _frames(count: int) -> void:
	for i in count:
		await get_tree().process_frame


## The golden script; tests/live/multiplayer/test_api.py plays the same one.
func _play(id: int) -> void:
	$Rpc.r0.rpc_id(id)
	$Rpc.r2.rpc_id(id, 7, "seven")
	$Rpc.u1.rpc_id(id, PackedByteArray([1, 2, 3]))
	await _frames(30)
	$Rpc.r3.rpc_id(id, true, -70000, Vector2(0.5, 2))
	var entity := preload("res://api_entity.tscn").instantiate()
	entity.name = "E1"
	entity.position = Vector2(1.5, -2)
	entity.spin = 0.25
	entity.hp = 100
	entity.label = "hello"
	$Entities.add_child(entity)
	await _frames(10)
	entity.poke.rpc_id(id, 41)
	await _frames(10)
	entity.hp = 90
	await _frames(10)
	entity.label = "bye"
	entity.position = Vector2(3, 4)
	await _frames(10)
	entity.queue_free()
	await _frames(10)
	await _finish()


## r1 with one empty PackedByteArray (what Godot sends for it, and what its client makes of
## that: tests/live/multiplayer/test_rpc.py), then with one byte.
func _play_bytes(id: int) -> void:
	$Rpc.r1.rpc_id(id, PackedByteArray())
	$Rpc.r1.rpc_id(id, PackedByteArray([5]))
	await _frames(10)
	await _finish()


## Call finish, then quit once the client left: the client quits on FINISH. Quitting first
## could lose it: a client that sees the call and the close in one poll drops the call, as
## a loaded machine showed.
func _finish() -> void:
	$Rpc.finish.rpc()
	await smp.peer_disconnected
	get_tree().quit()


## The spawner's spawn_function: an entity built from spawn(data), data = [name, hp, label].
func _build(data: Array) -> Node:
	print("BUILD ", var_to_bytes(data).hex_encode())
	var entity := preload("res://api_entity.tscn").instantiate()
	entity.name = data[0]
	entity.hp = data[1]
	entity.label = data[2]
	return entity


func _shown(_peer: int) -> bool:
	return shown


## The visibility golden script; multiplayer_api_scene.visibility_script plays the same one.
func _play_visibility(id: int) -> void:
	var entity := preload("res://api_entity.tscn").instantiate()
	entity.name = "V1"
	entity.position = Vector2(0.5, 1)
	entity.spin = 2.0
	entity.hp = 1
	entity.label = "seen"
	$Entities.add_child(entity)
	var sync := entity.get_node("MultiplayerSynchronizer") as MultiplayerSynchronizer
	await _frames(10)
	sync.public_visibility = false  # nobody sees it: DESPAWN
	await _frames(10)
	entity.hp = 2  # a change nobody gets now
	await _frames(10)
	sync.set_visibility_for(id, true)  # SPAWN with today's state
	await _frames(10)
	sync.set_visibility_for(id, false)  # DESPAWN
	await _frames(10)
	sync.public_visibility = true  # SPAWN
	await _frames(10)
	var not_you := func(peer: int) -> bool: return peer != id
	sync.add_visibility_filter(not_you)  # asked about peer 0 first, where it says yes
	await _frames(10)
	entity.hp = 3
	await _frames(10)
	sync.remove_visibility_filter(not_you)
	shown = false
	sync.add_visibility_filter(_shown)  # no for everyone, in the next frame: DESPAWN
	await _frames(10)
	shown = true  # SPAWN
	await _frames(10)
	entity.queue_free()
	await _frames(10)
	var custom: Node = $Spawner.spawn(["C1", 7, "made"])
	await _frames(10)
	custom.queue_free()
	await _frames(10)
	await _finish()
