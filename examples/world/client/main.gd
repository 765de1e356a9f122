extends Node2D
## The open world's client: a stock ENetMultiplayerPeer joins the Python server
## (examples/world/server.py). Snapshots come through multiplayer.peer_packet to
## snapshot_receiver.gd (gdvariant.multiplayer.snapshots.receiver_script) and
## world_decoder.gd (generated from world_schema.py); only the entities in our area arrive.
## Each frame draws the world as it was at the render tick, INTERP_DELAY ticks behind the
## newest snapshot, with decoder.apply_to_nodes(nodes, render_tick). Headless, it plays as a
## bot: walks, turning every few seconds, and fires at the nearest wanderer it sees. In a
## window, the arrow keys steer and a click fires at the mouse. Either way the shot carries
## the render tick of the frame it was fired in; the server rewinds to that tick to test it.
##
## Arguments after `--`: HOST PORT [SHOTS [report]]. It quits after SHOTS answered shots
## (0, the default: never). With "report", after each snapshot applied it sends the server a
## RAW packet: "R", the newest tick (u32), var_to_bytes of the ids it holds, sorted.

const REPORT := 0x52
const REACH := 500.0  # the server's REACH
const WALK_SECONDS := 3.0

@onready var net: Node = $Net
@onready var entities: Node2D = $Entities
var decoder: Object
var receiver: Node
var nodes := {}  # entity id -> Node2D on screen
var me := -1
var rate := 20
var delay := 2.0
var newest := -1  # the newest tick applied
var newest_at := 0  # when it arrived (Time.get_ticks_usec)
var render_tick := 0.0
var avatar_class := -1
var shots_wanted := 0
var report := false
var applied := 0
var appeared := 0
var left := 0
var shots := 0
var hits := 0
var pending := false
var next_shot_at := 0.0
var walk := Vector2.RIGHT
var walked := 0.0
var human := DisplayServer.get_name() != "headless"


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	var host: String = args[0] if args.size() > 0 else "127.0.0.1"
	var port := int(args[1]) if args.size() > 1 else 7000
	shots_wanted = int(args[2]) if args.size() > 2 else 0
	report = args.size() > 3 and args[3] == "report"
	var peer := ENetMultiplayerPeer.new()
	var error := peer.create_client(host, port)
	if error != OK:
		printerr("cannot connect to %s:%d: %s" % [host, port, error_string(error)])
		get_tree().quit(1)
		return
	multiplayer.multiplayer_peer = peer
	multiplayer.server_disconnected.connect(_finish)
	decoder = load("res://world_decoder.gd").new()
	var names: Array = decoder.get_script().get_script_constant_map()["CLASS_NAMES"]
	avatar_class = names.find("DT_Avatar")
	receiver = load("res://snapshot_receiver.gd").new()
	receiver.decoder = decoder
	receiver.applied.connect(_on_applied)
	receiver.rejected.connect(func(message: String) -> void: printerr("refused: " + message))
	add_child(receiver)
	net.welcomed.connect(_on_welcomed)
	net.shot_result.connect(_on_shot)


func _on_welcomed(avatar: int, tick_rate: int, interp_delay: float) -> void:
	me = avatar
	rate = tick_rate
	delay = interp_delay
	print("welcome: avatar %d, %d ticks a second, rendering %.1f ticks behind" % [me, rate, delay])


func _on_applied(_tick: int) -> void:
	applied += 1
	if decoder.newest_tick > newest:
		newest = decoder.newest_tick
		newest_at = Time.get_ticks_usec()
	if report:
		var out := PackedByteArray([REPORT, 0, 0, 0, 0])
		out.encode_u32(1, decoder.newest_tick)
		var ids: Array = decoder.state.keys()
		ids.sort()
		out.append_array(var_to_bytes(PackedInt64Array(ids)))
		multiplayer.send_bytes(out, 1, MultiplayerPeer.TRANSFER_MODE_RELIABLE)


func _process(delta: float) -> void:
	if newest < 0:
		return
	# Where the server is now, estimated from the newest snapshot and the time since it came;
	# we show the world INTERP_DELAY ticks before that (docs/replication-interpolation.md).
	var since := (Time.get_ticks_usec() - newest_at) / 1000000.0
	# Never past the newest tick: the decoder holds it there, not extrapolating.
	render_tick = minf(newest + since * rate - delay, newest)
	var view: Array = decoder.interpolated(render_tick)  # [{id: values}, {id: class id}]
	_show(view[0], view[1])
	decoder.apply_to_nodes(nodes, render_tick)
	_steer(delta)
	_aim()


## Nodes for the entities at the render tick: new ones appear, the ones gone are freed.
func _show(view: Dictionary, classes: Dictionary) -> void:
	for id in view:
		if not nodes.has(id):
			var node := Node2D.new()
			node.set_script(load("res://entity.gd"))
			node.is_avatar = classes[id] == avatar_class
			node.is_me = id == me
			if node.is_me:
				node.add_child(Camera2D.new())
			nodes[id] = node
			entities.add_child(node)
			appeared += 1
	for id in nodes.keys():
		if not view.has(id):
			nodes[id].queue_free()
			nodes.erase(id)
			left += 1


func _steer(delta: float) -> void:
	if human:
		var stick := Input.get_vector("ui_left", "ui_right", "ui_up", "ui_down")
		net.move.rpc_id(1, stick.x, stick.y)
		return
	walked += delta
	if walked > WALK_SECONDS:
		walked = 0.0
		walk = walk.orthogonal()
	net.move.rpc_id(1, walk.x, walk.y)


func _unhandled_input(event: InputEvent) -> void:
	var click := event as InputEventMouseButton
	if human and click != null and click.pressed and nodes.has(me) and not pending:
		_fire(get_global_mouse_position() - nodes[me].position)


## Fire at the nearest wanderer on screen, as it is drawn now (at the render tick).
func _aim() -> void:
	if human or pending or not nodes.has(me) or render_tick < next_shot_at or left == 0:
		return
	var from: Vector2 = nodes[me].position
	var target: Node2D = null
	for id in nodes:
		var node: Node2D = nodes[id]
		if not node.is_avatar and from.distance_to(node.position) < REACH * 0.9:
			if target == null or from.distance_to(node.position) < from.distance_to(target.position):
				target = node
	if target != null:
		_fire(target.position - from)


func _fire(aim: Vector2) -> void:
	pending = true
	shots += 1
	net.fire.rpc_id(1, aim, render_tick)


func _on_shot(target: int, view_tick: float, where: Vector2) -> void:
	pending = false
	next_shot_at = render_tick + 2 * rate
	if target >= 0:
		hits += 1
		print("hit confirmed: entity %d at %s, as seen at tick %.2f" % [target, where, view_tick])
	else:
		print("missed (tested at tick %.2f)" % view_tick)
	if shots_wanted > 0 and shots >= shots_wanted:
		_finish()


func _finish() -> void:
	print("applied %d snapshots up to tick %d; %d entities appeared and %d left; %d hits of %d shots" % [
		applied, newest, appeared, left, hits, shots])
	get_tree().quit()
