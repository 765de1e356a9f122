# A Godot 4 client of examples/relay/server.py, for the headless engine:
#   godot --headless --script client.gd -- HOST PORT NAME PLAYERS MOVES
# Joins as NAME, waits until PLAYERS players are in, sends MOVES moves and one chat line,
# waits for everyone else's, prints a summary line and quits (exit code 0 when all arrived).
extends SceneTree

const TIMEOUT_MS := 20000

var tcp := StreamPeerTCP.new()
var roster: Array = []
var moves_seen := {}
var chats_seen := {}


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() != 5:
		printerr("usage: client.gd -- HOST PORT NAME PLAYERS MOVES")
		quit(2)
		return
	var me: String = args[2]
	var players := int(args[3])
	var moves := int(args[4])
	if not _connect(args[0], int(args[1])):
		quit(1)
		return
	tcp.put_var({"type": "join", "name": me})
	if not _wait_until(func() -> bool: return roster.size() >= players):
		quit(1)
		return
	for i in moves:
		tcp.put_var({"type": "move", "pos": Vector2(i, i * 2)})
	tcp.put_var({"type": "chat", "text": "hello from %s, ¡olé! 👋" % me})
	var everyone := func() -> bool:
		return chats_seen.size() >= players - 1 and moves_seen.values().all(func(n): return n == moves) \
				and moves_seen.size() >= players - 1
	var ok := _wait_until(everyone)
	print("%s saw %d chats and %s moves from %s" % [me, chats_seen.size(), moves_seen.values(), moves_seen.keys()])
	tcp.disconnect_from_host()
	quit(0 if ok else 1)


func _connect(host: String, port: int) -> bool:
	tcp.connect_to_host(host, port)
	var t0 := Time.get_ticks_msec()
	while tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		tcp.poll()
		if tcp.get_status() == StreamPeerTCP.STATUS_ERROR or Time.get_ticks_msec() - t0 > TIMEOUT_MS:
			printerr("cannot connect to %s:%d" % [host, port])
			return false
		OS.delay_msec(5)
	tcp.set_no_delay(true)
	return true


func _wait_until(done: Callable) -> bool:
	# Handle incoming messages until done() holds; false after TIMEOUT_MS.
	var t0 := Time.get_ticks_msec()
	while not done.call():
		tcp.poll()
		if tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED or Time.get_ticks_msec() - t0 > TIMEOUT_MS:
			printerr("gave up waiting (status %d)" % tcp.get_status())
			return false
		if tcp.get_available_bytes() == 0:
			OS.delay_msec(1)
			continue
		var m: Variant = tcp.get_var()
		match m.get("type"):
			"roster":
				roster = m["names"]
			"moved":
				moves_seen[m["name"]] = moves_seen.get(m["name"], 0) + 1
			"said":
				chats_seen[m["name"]] = m["text"]
				print("%s says: %s" % [m["name"], m["text"]])
	return true
