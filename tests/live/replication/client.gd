extends SceneTree
## The Godot 4 side of tests/live/replication/test_gdscript.py's live session: a PacketPeerUDP
## client that applies our server's packets with the generated decoder, acks with a lag, and
## reports every state it reaches (var_to_bytes) so the server can compare.
##
## Arguments: HOST PORT DECODER_PATH SEED HISTORY. Messages (first byte = kind):
##   to us:   0 hello | 3 report: u32 tick (0 = apply failed), u32 ack (0 = none), then
##            var_to_bytes([state, classes]) with ids sorted, or the decoder's last_error
##   from us: 1 packet: a snapshot packet | 2 done

const HELLO := 0
const PACKET := 1
const DONE := 2
const REPORT := 3
const IDLE_LIMIT_MS := 60000


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var decoder = load(args[2]).new()
	decoder.history = int(args[4])
	var rng := RandomNumberGenerator.new()
	rng.seed = int(args[3])
	var udp := PacketPeerUDP.new()
	udp.connect_to_host(args[0], int(args[1]))
	udp.put_packet(PackedByteArray([HELLO]))
	var idle_since := Time.get_ticks_msec()
	while true:
		if udp.get_available_packet_count() == 0:
			if Time.get_ticks_msec() - idle_since > IDLE_LIMIT_MS:
				printerr("no packet from the server for %d ms" % IDLE_LIMIT_MS)
				quit(1)
				return
			OS.delay_usec(50)
			continue
		idle_since = Time.get_ticks_msec()
		var message := udp.get_packet()
		if message[0] == DONE:
			break
		var tick: int = decoder.apply(message.slice(1))
		var out := PackedByteArray([REPORT, 0, 0, 0, 0, 0, 0, 0, 0])
		if tick < 0:
			out.append_array((decoder.last_error + " @ " + decoder.last_error_path).to_utf8_buffer())
		else:
			out.encode_u32(1, tick)
			out.encode_u32(5, _choose_ack(decoder, rng))
			out.append_array(var_to_bytes(decoder.sorted_state()))
		udp.put_packet(out)
	quit()


## Acks lag: half the time none, else the newest tick or an older one still held.
func _choose_ack(decoder: Object, rng: RandomNumberGenerator) -> int:
	var roll := rng.randf()
	if roll < 0.5:
		return 0
	if roll < 0.8:
		return decoder.newest_tick
	var held: Array = decoder.held_ticks()
	return held[rng.randi_range(0, held.size() - 1)]
