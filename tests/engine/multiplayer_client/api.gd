extends Node
## The scene of the server API test (tests/test_engine_multiplayer_api.py): an RPC node
## (api_rpc.gd), a MultiplayerSpawner of api_entity.tscn and this script. Stock nodes only.
##
## Arguments (after --):
##   URL SECONDS [silent]
##                 join the server at URL (ws:// or enet://, join.gd), authenticate with
##                 "letmein" (or, silent, send nothing until the server gives up), make two
##                 calls the server must refuse, then print what arrives (the RPC node
##                 echoes every call back); quit on FINISH, when the server goes away or
##                 fails our authentication, or after SECONDS.
##   server PORT   be the Godot server of the golden recording: serve one client the same
##                 script of calls, spawns, changes and despawns as the Python test does.

const Join := preload("res://join.gd")

var smp: SceneMultiplayer
var silent := false


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	smp = multiplayer as SceneMultiplayer
	smp.auth_callback = _on_auth
	smp.peer_authenticating.connect(_on_authenticating)
	$Rpc.rpc_config("hey", {"rpc_mode": MultiplayerAPI.RPC_MODE_AUTHORITY})  # node-level
	print("RPC_CONFIG ", JSON.stringify($Rpc.get_script().get_rpc_config()))
	$Spawner.spawned.connect(func(node): print("SPAWNED ", node.name))
	$Spawner.despawned.connect(func(node): print("DESPAWNED ", node.name))
	if args[0] == "server":
		_serve(int(args[1]))
		return
	silent = args.size() > 2 and args[2] == "silent"
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
	smp.peer_connected.connect(_play)
	get_tree().create_timer(20.0).timeout.connect(_quit_with.bind("TIMEOUT"))


func _frames(count: int) -> void:
	for i in count:
		await get_tree().process_frame


## The golden script; tests/test_engine_multiplayer_api.py plays the same one.
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
	$Rpc.finish.rpc()
	# The client quits on FINISH. Quitting first could lose it: a client that sees the call
	# and the close in one poll drops the call, as a loaded machine showed.
	await smp.peer_disconnected
	get_tree().quit()
