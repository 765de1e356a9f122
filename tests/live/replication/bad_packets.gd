extends SceneTree
## Damaged packets through the generated decoder, for tests/live/replication/test_gdscript.py.
##
## Arguments: DECODER_PATH IN OUT. IN holds var_to_bytes([full, delta, [bad, ...]]). For each
## bad packet and then the intact delta, a fresh decoder applies the full packet and then
## that one; OUT gets var_to_bytes of one [tick, last_error, last_error_path, kept, state]
## per packet: kept = the state, classes, ticks and newest tick are unchanged, state =
## var_to_bytes([state, classes]) with ids sorted.

const DecoderState := preload("state.gd")


func _init() -> void:
	var args := DecoderState.arguments()
	var script: GDScript = args[0]
	var input: Array = args[1]
	var packets: Array = input[2].duplicate()
	packets.append(input[1])
	var results := []
	for packet in packets:
		var decoder = script.new()
		if decoder.apply(input[0]) < 0:
			printerr("the full packet failed: " + decoder.last_error)
			quit(1)
			return
		var before := _snapshot(decoder)
		var tick: int = decoder.apply(packet)
		var kept := _snapshot(decoder) == before
		var state := var_to_bytes(decoder.sorted_state())
		results.append([tick, decoder.last_error, decoder.last_error_path, kept, state])
	DecoderState.write(args[2], results)
	quit()


func _snapshot(decoder: Object) -> PackedByteArray:
	var state := var_to_bytes(decoder.sorted_state())
	return var_to_bytes([state, decoder.held_ticks(), decoder.newest_tick])
