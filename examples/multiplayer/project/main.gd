extends Node
## The relay game: each client joins under a name (its auth data), gets a player spawned
## for it, sends MOVES moves and one chat line, and waits until it has seen every other
## player's last position and chat line. Exit code 0 when it has.
##
##   godot --headless -- HOST PORT NAME PLAYERS MOVES   a client
##   godot --headless -- server PORT                    the Godot server of the same game
##                                                      (for one round: it quits when the
##                                                      last player leaves)

const TIMEOUT := 20.0

var smp: SceneMultiplayer
var me := ""
var players := 0
var moves := 0
var chats := {}
var arrived := {}  # the players seen at their last position (they may have left since)
var names := {}  # on a server: peer id -> name


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	smp = multiplayer as SceneMultiplayer
	smp.auth_callback = _on_auth
	if args[0] == "server":
		_serve(int(args[1]))
		return
	me = args[2]
	players = int(args[3])
	moves = int(args[4])
	smp.peer_authenticating.connect(func(id): smp.send_auth(id, me.to_utf8_buffer()))
	$PlayerSpawner.despawned.connect(_check)
	smp.connected_to_server.connect(_play)
	smp.connection_failed.connect(_finish.bind(false, "cannot connect"))
	smp.server_disconnected.connect(_finish.bind(false, "the server left"))
	var peer := WebSocketMultiplayerPeer.new()
	peer.create_client("ws://%s:%s" % [args[0], args[1]])
	smp.multiplayer_peer = peer
	get_tree().create_timer(TIMEOUT).timeout.connect(_finish.bind(false, "gave up waiting"))


func _on_auth(id: int, data: PackedByteArray) -> void:
	if not multiplayer.is_server():
		smp.complete_auth(id)  # the server accepted our name
		return
	var name_given := data.get_string_from_utf8()
	if name_given.is_empty() or name_given in names.values():
		smp.disconnect_peer(id)
		return
	names[id] = name_given
	smp.send_auth(id, "ok".to_utf8_buffer())
	smp.complete_auth(id)


func _play() -> void:
	while $Players.get_child_count() < players:
		await get_tree().process_frame
	var mine := $Players.get_node(str(multiplayer.get_unique_id()))
	for i in moves:
		mine.move.rpc_id(1, _move(i))
	say.rpc_id(1, "hello from %s, ¡olé! 👋" % me)
	while not _saw_everything():
		await get_tree().process_frame
	_finish(true, "")


func _move(i: int) -> Vector2:
	return Vector2(i, i * 2)


func _saw_everything() -> bool:
	for player in $Players.get_children():
		_check(player)
	return arrived.size() >= players and chats.size() >= players  # our own line comes back too


func _check(player: Node) -> void:
	if player.position == _move(moves - 1):
		arrived[player.display_name] = true


func _finish(ok: bool, why: String) -> void:
	if ok:
		var others := chats.keys()
		others.sort()
		print("%s saw the last moves of %d players and chats from %s" % [me, players, others])
	else:
		printerr("%s: %s" % [me, why])
	get_tree().quit(0 if ok else 1)


## A client's chat line, for the server to pass on.
@rpc("any_peer")
func say(text: String) -> void:
	if multiplayer.is_server():
		said.rpc(names.get(multiplayer.get_remote_sender_id(), "?"), text.left(200))


## A chat line from the server to everyone.
@rpc
func said(who: String, text: String) -> void:
	chats[who] = text
	print("%s says: %s" % [who, text])


func _serve(port: int) -> void:
	var peer := WebSocketMultiplayerPeer.new()
	if peer.create_server(port) != OK:
		printerr("cannot listen on ", port)
		get_tree().quit(1)
		return
	smp.multiplayer_peer = peer
	smp.peer_connected.connect(_spawn_player)
	smp.peer_disconnected.connect(_remove_player)


func _spawn_player(id: int) -> void:
	var player := preload("res://player.tscn").instantiate()
	player.name = str(id)
	player.display_name = names[id]
	$Players.add_child(player)


func _remove_player(id: int) -> void:
	names.erase(id)
	var player := $Players.get_node_or_null(str(id))
	if player:
		player.queue_free()
	if names.is_empty():
		get_tree().quit()
