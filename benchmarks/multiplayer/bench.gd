extends Node
## benchmarks/bench_multiplayer.py's Godot side. Arguments (after --):
##   server PORT ENTITIES TRANSPORT MAX_CLIENTS
##                          serve over TRANSPORT (websocket or enet; ENet takes at most
##                          MAX_CLIENTS peers) at 30 frames a second: spawn ENTITIES
##                          entities for each peer, visible to that peer only; each frame
##                          set every entity's position to (tick, index), once a second bump
##                          its hp; answer ping with pong; print TICKS <n> every 15 frames.
##   ADDRESS PING_HZ STOP   a client of ws://HOST:PORT or enet://HOST:PORT: print SPAWNED
##                          <name> as each entity arrives, count the syncs of our entities
##                          (checking each one's index), ping the server PING_HZ times a
##                          second, and print STATS as JSON once the file STOP exists or
##                          the server goes away (an ENet server that is killed says
##                          nothing: the harness writes STOP first).

const TICK_HZ := 30

var entity_scene := preload("res://bench_entity.tscn")
var per_peer := 0
var ticks := 0
var entities: Array[Node2D] = []
# client side
var syncs := 0
var deltas := 0
var bad := 0
var last_x := {}
var sent_at := {}
var rtts: Array[float] = []
var seq := 0
var first_sync_ms := 0
var last_sync_ms := 0
var stop_file := ""
var reported := false


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	var smp := multiplayer as SceneMultiplayer
	smp.server_relay = false  # no ADD_PEER storm between 100 clients; ours does the same
	if args[0] == "server":
		_serve(int(args[1]), int(args[2]), args[3], int(args[4]))
		return
	Engine.max_fps = 2 * TICK_HZ  # a headless client would otherwise spin a core
	$Spawner.spawned.connect(func(node): print("SPAWNED ", node.name))  # the harness waits
	var peer: MultiplayerPeer
	var error := OK
	if args[0].begins_with("enet://"):
		var address: String = args[0].trim_prefix("enet://")
		var colon := address.rfind(":")
		var enet := ENetMultiplayerPeer.new()
		error = enet.create_client(address.left(colon), int(address.substr(colon + 1)))
		peer = enet
	else:
		var ws := WebSocketMultiplayerPeer.new()
		error = ws.create_client(args[0])
		peer = ws
	if error != OK:
		_quit_with("CANNOT_CONNECT")
		return
	multiplayer.multiplayer_peer = peer
	multiplayer.server_disconnected.connect(_report)  # the harness stops the server
	stop_file = args[2]
	var timer := Timer.new()
	timer.wait_time = 1.0 / float(args[1])
	timer.autostart = true
	timer.timeout.connect(_ping)
	add_child(timer)


func _serve(port: int, count: int, transport: String, max_clients: int) -> void:
	per_peer = count
	Engine.max_fps = TICK_HZ
	var error := OK
	if transport == "enet":
		var enet := ENetMultiplayerPeer.new()
		error = enet.create_server(port, max_clients)
		multiplayer.multiplayer_peer = enet
	else:
		var ws := WebSocketMultiplayerPeer.new()
		ws.handshake_timeout = 30.0  # 100 clients joining at once on a loaded machine
		error = ws.create_server(port)
		multiplayer.multiplayer_peer = ws
	if error != OK:
		_quit_with("CANNOT_LISTEN")
		return
	multiplayer.peer_connected.connect(_spawn_for)
	multiplayer.peer_disconnected.connect(_despawn_for)
	print("LISTENING")


func _spawn_for(id: int) -> void:
	for i in per_peer:
		var entity: Node2D = entity_scene.instantiate()
		entity.name = "E%d_%d" % [id, i]
		entity.position = Vector2(ticks, i)
		var sync := entity.get_node("MultiplayerSynchronizer") as MultiplayerSynchronizer
		sync.public_visibility = false
		sync.set_visibility_for(id, true)
		$Entities.add_child(entity)
		entities.append(entity)


func _despawn_for(id: int) -> void:
	var prefix := "E%d_" % id
	for entity in entities.duplicate():
		if str(entity.name).begins_with(prefix):
			entities.erase(entity)
			entity.queue_free()


func _process(_delta: float) -> void:
	if not multiplayer.is_server():
		return
	ticks += 1
	var bump := ticks % TICK_HZ == 0
	for entity in entities:
		entity.position.x = ticks
		if bump:
			entity.hp += 1
	if ticks % 15 == 0:
		print("TICKS ", ticks)


func _index(entity: Node) -> int:
	var name := str(entity.name)
	return name.substr(name.rfind("_") + 1).to_int()


func synced(entity: Node2D) -> void:
	var now := Time.get_ticks_msec()
	if syncs == 0:
		first_sync_ms = now
	last_sync_ms = now
	syncs += 1
	var key := str(entity.name)
	if int(entity.position.y) != _index(entity) or entity.position.x < last_x.get(key, -1.0):
		bad += 1
	last_x[key] = entity.position.x


func delta(_entity: Node2D) -> void:
	deltas += 1


func _ping() -> void:
	if FileAccess.file_exists(stop_file):
		_report()
		return
	if multiplayer.get_peers().is_empty():
		return
	seq += 1
	sent_at[seq] = Time.get_ticks_usec()
	$Rpc.ping.rpc_id(1, seq)


func ponged(number: int) -> void:
	if sent_at.has(number):
		rtts.append((Time.get_ticks_usec() - sent_at[number]) / 1000.0)
		sent_at.erase(number)


func _report() -> void:
	if reported:
		return
	reported = true
	rtts.sort()
	var stats := {
		"entities": $Entities.get_child_count(),
		"syncs": syncs,
		"deltas": deltas,
		"bad": bad,
		"sync_seconds": (last_sync_ms - first_sync_ms) / 1000.0,
		"pings": seq,
		"pongs": rtts.size(),
		"p50_ms": rtts[rtts.size() / 2] if rtts else -1.0,
		"p99_ms": rtts[int(rtts.size() * 0.99)] if rtts else -1.0,
	}
	_quit_with("STATS " + JSON.stringify(stats))


func _quit_with(what: String) -> void:
	print(what)
	get_tree().quit()
