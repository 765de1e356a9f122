extends Node
## Runs as a SceneMultiplayer server or client over WebSocketMultiplayerPeer, with auth,
## spawns (scene index and custom), full/delta/static syncs, RPCs of every form, RAW and relay.
## The first client also gets RPCs on CROWD nodes, so that path cache ids pass 255.
##
## Arguments (after --): server PORT SECONDS [enet] | client URL SECONDS. Each side quits
## after SECONDS; the server despawns every player one second before that. With "enet" the
## server is an ENetMultiplayerPeer instead.

const PLAYER := "res://player.tscn"
const CROWD := 260

var smp: SceneMultiplayer
var next_bullet := 0


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	Engine.max_fps = 30
	$PlayerSpawner.add_spawnable_scene(PLAYER)
	$BulletSpawner.spawn_function = _spawn_bullet
	var crowd_script := load("res://crowd.gd")
	for i in CROWD:
		var member := Node.new()
		member.name = "N%d" % i
		member.set_script(crowd_script)
		$Crowd.add_child(member)
	rpc_config(&"dyn_call", {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER})
	smp = multiplayer as SceneMultiplayer
	smp.auth_callback = _on_auth
	smp.peer_authenticating.connect(_on_authenticating)
	smp.peer_connected.connect(_on_peer_connected)
	smp.peer_disconnected.connect(func(id): print("peer_disconnected ", id))
	smp.peer_packet.connect(func(id, data): print("peer_packet %d %s" % [id, data]))
	var enet := args.size() > 3 and args[3] == "enet"
	var ws := WebSocketMultiplayerPeer.new()
	var en := ENetMultiplayerPeer.new()
	var peer: MultiplayerPeer = en if enet else ws
	var seconds := float(args[2])
	var err: Error
	if args[0] == "server":
		if enet:
			en.set_bind_ip("127.0.0.1")
			err = en.create_server(int(args[1]))
		else:
			err = ws.create_server(int(args[1]), "127.0.0.1")
		get_tree().create_timer(seconds - 1.0).timeout.connect(_despawn_all)
	else:
		err = ws.create_client(args[1])
		smp.server_disconnected.connect(func(): get_tree().quit())
	if err != OK:
		printerr("cannot start: ", err)
		get_tree().quit(2)
		return
	smp.multiplayer_peer = peer
	get_tree().create_timer(seconds).timeout.connect(func(): get_tree().quit())


func _on_authenticating(id: int) -> void:
	if not multiplayer.is_server():
		smp.send_auth(id, "hi".to_utf8_buffer())


func _on_auth(id: int, data: PackedByteArray) -> void:
	print("auth from %d: %s" % [id, data.get_string_from_utf8()])
	if multiplayer.is_server():
		smp.send_auth(id, "ok".to_utf8_buffer())
	smp.complete_auth(id)


func _on_peer_connected(id: int) -> void:
	print("peer_connected ", id)
	if multiplayer.is_server():
		_serve(id)
	elif id == 1:
		_client_session()
	else:
		_greet(id)


func _serve(id: int) -> void:
	var player := preload(PLAYER).instantiate()
	player.name = str(id)
	player.position = Vector2(100, 200)
	player.health = 100
	player.label = "P%d" % id
	$Players.add_child(player, true)
	await get_tree().create_timer(0.5).timeout
	if not is_instance_valid(player):
		return
	player.take_damage.rpc_id(id, 10)
	player.ping.rpc_id(id)
	player.blob.rpc_id(id, PackedByteArray([0xDE, 0xAD]))
	player.blob.rpc_id(id, PackedByteArray())
	player.many.rpc_id(id, 1, -1, 128, 40000, 5000000000, 0.5, 0.1, true)
	player.values.rpc_id(
		id, "run", Vector2(1.5, -2), [1, "a"], {"k": Vector3(1, 2, 3)}, null, &"sn",
		NodePath("A/B"), Color(1, 0, 0, 1)
	)
	player.fast.rpc_id(id, 3)
	player.ordered.rpc_id(id, -40000)
	player.play_anim.rpc("run")
	server_msg.rpc_id(id, "hello")
	dyn_call.rpc_id(id, 42)
	smp.send_bytes(PackedByteArray([1, 2, 3]), id)
	$BulletSpawner.spawn({"dir": Vector2(1, 0), "speed": 3.5})
	$GameState.score += 5
	if get_tree().get_meta("crowd_done", false):
		pass
	else:
		get_tree().set_meta("crowd_done", true)
		_poke_crowd(id)
	for i in 8:
		await get_tree().process_frame
		if not is_instance_valid(player):
			return
		player.position.x += 4.5
		$GameState.tick += 1
		if i % 3 == 0:
			player.health -= 1
		if i == 4:
			player.speed = 2.25


func _poke_crowd(id: int) -> void:
	# Path cache ids above 255 (then 16-bit node ids once confirmed) and method ids above 255.
	for member in $Crowd.get_children():
		member.r299.rpc_id(id, member.get_index())
	await get_tree().create_timer(1.5).timeout  # the client confirms 260 paths slowly
	$Crowd.get_child(0).r299.rpc_id(id, 0)
	for member in $Crowd.get_children().slice(CROWD - 8):
		member.r299.rpc_id(id, -member.get_index())
		member.r007.rpc_id(id, member.name)


func _despawn_all() -> void:
	for child in $Players.get_children():
		child.queue_free()


func _client_session() -> void:
	await get_tree().create_timer(0.3).timeout
	client_msg.rpc_id(1, 1, "two")
	dyn_call.rpc_id(1, 7)
	smp.send_bytes(PackedByteArray([9, 8, 7]), 1)


func _greet(other: int) -> void:
	await get_tree().create_timer(0.2).timeout
	hello.rpc_id(other, "hi from %d" % multiplayer.get_unique_id())
	broadcast_msg.rpc(7)
	smp.send_bytes(PackedByteArray([5]), other)
	smp.send_bytes(PackedByteArray([6]), 0)
	hello.rpc_id(-other, "all but %d" % other)


func _spawn_bullet(data: Variant) -> Node:
	var bullet := Node2D.new()
	bullet.name = "Bullet%d" % next_bullet
	next_bullet += 1
	bullet.position = data["dir"] * data["speed"]
	return bullet


func dyn_call(x) -> void:
	print("dyn_call ", x)


@rpc
func server_msg(text: String) -> void:
	print("server_msg ", text)


@rpc("any_peer")
func client_msg(a, b) -> void:
	print("client_msg ", a, b)


@rpc("any_peer")
func hello(text: String) -> void:
	print("hello from %d: %s" % [multiplayer.get_remote_sender_id(), text])


@rpc("any_peer", "call_remote", "reliable")
func broadcast_msg(x) -> void:
	print("broadcast_msg %s from %d" % [x, multiplayer.get_remote_sender_id()])
