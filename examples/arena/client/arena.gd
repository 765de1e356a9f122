extends Node2D
## The arena client: joins the Python server (examples/arena/arena_server.py) over UDP, steers
## its player like a bot would, applies every snapshot packet with the decoder generated from
## arena_schema.py (arena_decoder.gd, from `gdvariant schema gdscript`), and draws the floor.
##
## Arguments after `--`: HOST PORT NAME. At the end the server sends DONE; the client answers
## with the state it holds (var_to_bytes), which the server compares with its own, and quits.

const JOIN := 0
const INPUT := 1
const REPORT := 2
const WELCOME := 0
const PACKET := 1
const DONE := 2
const FLOOR := 900.0

var udp := PacketPeerUDP.new()
var decoder = preload("res://arena_decoder.gd").new()
var rng := RandomNumberGenerator.new()
var player_name := "player"
var me := -1
var steer := Vector2.ZERO
var applied := 0
var shots_seen := {}


func _ready() -> void:
	var args := OS.get_cmdline_user_args()
	var host := args[0] if args.size() > 0 else "127.0.0.1"
	var port := int(args[1]) if args.size() > 1 else 4433
	player_name = args[2] if args.size() > 2 else "player"
	rng.seed = hash(player_name)
	udp.connect_to_host(host, port)
	var join := PackedByteArray([JOIN])
	join.append_array(player_name.to_utf8_buffer())
	udp.put_packet(join)


func _process(_delta: float) -> void:
	while udp.get_available_packet_count() > 0:
		var message := udp.get_packet()
		match message[0]:
			WELCOME:
				me = message.decode_u32(1)
			PACKET:
				if decoder.apply(message.slice(1)) < 0:
					printerr("%s: bad packet: %s (%s)" % [player_name, decoder.last_error, decoder.last_error_path])
				else:
					applied += 1
					_look()
				_send_input()
			DONE:
				_report()
				return
	queue_redraw()


## Count the shots in the world, by their id.
func _look() -> void:
	for id in decoder.state:
		if decoder.classes[id] == 1:  # DT_Shot
			shots_seen[[id, decoder.state[id]["shooter"]]] = true


## A bot's input: wander, turn now and then, fire when the clip allows; ack the newest tick.
func _send_input() -> void:
	if rng.randf() < 0.08 or steer == Vector2.ZERO:
		steer = Vector2.from_angle(rng.randf() * TAU)
	var fire := rng.randf() < 0.15
	var out := PackedByteArray([INPUT, 0, 0, 0, 0, 0, 0, 0])
	out.encode_u32(1, decoder.newest_tick)
	out.encode_s8(5, int(steer.x * 127))
	out.encode_s8(6, int(steer.y * 127))
	out[7] = 1 if fire else 0
	udp.put_packet(out)


func _report() -> void:
	var out := PackedByteArray([REPORT, 0, 0, 0, 0])
	out.encode_u32(1, decoder.newest_tick)
	out.append_array(var_to_bytes(decoder.sorted_state()))
	udp.put_packet(out)
	var mine: Dictionary = decoder.state.get(me, {})
	print("%s applied %d packets up to tick %d; saw %d shots; ended with health %d, ammo %d" % [
		player_name, applied, decoder.newest_tick, shots_seen.size(),
		mine.get("health", -1), mine.get("loadout.ammo", -1)])
	get_tree().quit()


func _draw() -> void:
	var scale := get_viewport_rect().size.x / (2.0 * FLOOR)
	var centre := get_viewport_rect().size / 2.0
	for id in decoder.state:
		var e: Dictionary = decoder.state[id]
		var at: Vector2 = centre + e["position"] * scale
		if decoder.classes[id] == 0:  # DT_Player
			var colour := Color.CORNFLOWER_BLUE if e["team"] == 0 else Color.CORAL
			draw_circle(at, 12.0, colour if id != me else Color.WHITE)
			draw_line(at, at + Vector2.from_angle(deg_to_rad(e["heading"])) * 18.0, Color.BLACK, 2.0)
		else:
			draw_circle(at, 3.0, Color(1.0, 0.8, 0.2, 0.3 + 0.7 * e["heat"]))
