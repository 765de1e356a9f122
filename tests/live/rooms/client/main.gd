extends Node
## Finds a room through gdvariant's matchmaker and plays in it: HTTPRequest to
## POST /rooms/join-or-create, then WebSocketMultiplayerPeer to the address it answers, the
## seat token as the AUTH data; then calls hello on the server, which answers with welcome
## and spawns a piece named after us. Prints SEAT, then PLAYED once both arrived; stays in
## its seat until the server calls finish, then prints DONE and quits (or why not).
##
## Arguments (after --): MATCHMAKER_URL ROOM_NAME USER SECONDS

var user := ""
var token := ""
var welcomed := ""
var pieces: Array[String] = []
var played := ""
var finished := false
var smp: SceneMultiplayer


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	user = args[2]
	smp = multiplayer as SceneMultiplayer
	get_tree().create_timer(float(args[3])).timeout.connect(_finish.bind("TIMEOUT"))
	$Spawner.spawned.connect(_on_spawned)
	var http := HTTPRequest.new()
	add_child(http)
	http.request_completed.connect(_on_matched)
	var body := JSON.stringify({"name": args[1], "user": user, "options": {"map": "dunes"}})
	var headers := PackedStringArray(["Content-Type: application/json"])
	var err := http.request(
		args[0] + "/rooms/join-or-create", headers, HTTPClient.METHOD_POST, body
	)
	if err != OK:
		_finish("HTTP_ERROR %d" % err)


func _on_matched(result: int, code: int, _headers: PackedStringArray, body: PackedByteArray) -> void:
	var text := body.get_string_from_utf8()
	if result != HTTPRequest.RESULT_SUCCESS or code != 200:
		_finish("MATCH_FAILED %d %d %s" % [result, code, text])
		return
	var seat: Dictionary = JSON.parse_string(text)
	token = seat["token"]
	print("SEAT ", seat["room"]["id"], " ", seat["address"])
	smp.auth_callback = func(_id: int, _data: PackedByteArray) -> void: pass
	smp.peer_authenticating.connect(_on_authenticating)
	smp.peer_authentication_failed.connect(func(_id: int) -> void: _finish("AUTH_FAILED"))
	smp.connected_to_server.connect(func() -> void: hello.rpc_id(1, user))
	smp.connection_failed.connect(_finish.bind("CONNECTION_FAILED"))
	smp.server_disconnected.connect(_finish.bind("SERVER_DISCONNECTED"))
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client(seat["address"])
	if err != OK:
		_finish("CANNOT_CONNECT %d" % err)
		return
	smp.multiplayer_peer = peer


func _on_authenticating(id: int) -> void:
	smp.send_auth(id, token.to_utf8_buffer())
	smp.complete_auth(id)


@rpc("any_peer", "call_remote", "reliable")
func hello(_name: String) -> void:
	pass


@rpc("authority", "call_remote", "reliable")
func finish() -> void:
	_finish("DONE" if played != "" else "FINISHED_EARLY")


@rpc("authority", "call_remote", "reliable")
func welcome(text: String) -> void:
	welcomed = text
	_check()


func _on_spawned(node: Node) -> void:
	pieces.append(str(node.name))
	_check()


func _check() -> void:
	if played == "" and welcomed != "" and user in pieces:
		played = "%s %s" % [welcomed, ",".join(pieces)]
		print("PLAYED ", played)


func _finish(how: String) -> void:
	if finished:
		return
	finished = true
	print(how)
	if smp.multiplayer_peer != null:
		smp.multiplayer_peer.close()
	get_tree().quit(0 if how.begins_with("DONE") else 1)
