extends SceneTree
## The generated decoder's state view, read only now and then, for
## tests/live/replication/test_gdscript.py.
##
## Arguments: DECODER_PATH IN OUT. IN holds var_to_bytes([[packet, ...], [read, ...]]). One
## decoder applies the packets in order and reads its state after packet i when read[i] is
## true. OUT gets var_to_bytes of the results: per read, [newest_tick,
## var_to_bytes([state, classes]) with ids sorted]; or, if a packet fails, its last_error.

const DecoderState := preload("state.gd")


func _init() -> void:
	var args := DecoderState.arguments()
	var script: GDScript = args[0]
	var input: Array = args[1]
	var packets: Array = input[0]
	var reads: Array = input[1]
	var decoder = script.new()
	var results := []
	for i in packets.size():
		if decoder.apply(packets[i]) < 0:
			results.append(decoder.last_error)
			break
		if reads[i]:
			var state := var_to_bytes(decoder.sorted_state())
			results.append([decoder.newest_tick, state])
	DecoderState.write(args[2], results)
	quit()
