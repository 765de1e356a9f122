extends SceneTree
## The generated decoder's sorted_state() as a snapshot, for tests/live/replication/test_gdscript.py.
##
## Arguments: DECODER_PATH IN OUT. IN holds var_to_bytes([[packet, ...], [keep, ...]]). One
## decoder applies the packets in order and keeps sorted_state() after packet i when keep[i]
## is true, and only after the last packet encodes what it kept. OUT gets var_to_bytes of
## the results: per kept state, [its tick, var_to_bytes(it)]; or, if a packet fails, its
## last_error.

const DecoderState := preload("state.gd")


func _init() -> void:
	var args := DecoderState.arguments()
	var script: GDScript = args[0]
	var input: Array = args[1]
	var packets: Array = input[0]
	var keeps: Array = input[1]
	var decoder = script.new()
	var kept := []
	for i in packets.size():
		if decoder.apply(packets[i]) < 0:
			DecoderState.write(args[2], [decoder.last_error])
			quit()
			return
		if keeps[i]:
			kept.append([decoder.newest_tick, decoder.sorted_state()])
	var results := []
	for entry in kept:
		results.append([entry[0], var_to_bytes(entry[1])])
	DecoderState.write(args[2], results)
	quit()
