extends SceneTree
## The generated decoder's interpolation, for tests/live/replication/test_interpolation.py.
##
## Arguments: DECODER_PATH IN OUT. IN holds var_to_bytes([[packet, ...], [[render tick, ...],
## ...], buffer]). One decoder, its interpolation_buffer set to buffer, applies the packets in
## order; after packet i, for each render tick t of the i-th list, it reports
## interpolated(t), then calls apply_to_nodes() with a recorder per entity at the list's last
## render tick. OUT gets var_to_bytes of the results: per packet, [buffered_ticks(), [var_to_bytes
## of each interpolated(t)], var_to_bytes({id: {property: value}}) as the recorders saw it];
## or, if a packet fails, its last_error.

const DecoderState := preload("state.gd")


## Records every set() as a property, whatever its name.
class Recorder:
	extends RefCounted
	var props := {}

	func _set(property: StringName, value: Variant) -> bool:
		props[String(property)] = value
		return true


func _init() -> void:
	var args := DecoderState.arguments()
	var script: GDScript = args[0]
	var input: Array = args[1]
	var packets: Array = input[0]
	var renders: Array = input[1]
	var decoder = script.new()
	decoder.interpolation_buffer = input[2]
	var nodes := {}
	var results := []
	for i in packets.size():
		if decoder.apply(packets[i]) < 0:
			results.append(decoder.last_error)
			break
		var times: Array = renders[i]
		var states := []
		for t in times:
			states.append(var_to_bytes(decoder.interpolated(t)))
		var shown: Array = decoder.interpolated(times[-1])
		var classes: Dictionary = shown[1]
		for id in nodes.keys():
			if not classes.has(id):
				nodes.erase(id)
		for id in classes:
			if not nodes.has(id):
				nodes[id] = Recorder.new()
		decoder.apply_to_nodes(nodes, times[-1])
		var ids := nodes.keys()
		ids.sort()
		var seen := {}
		for id in ids:
			var props := {}
			for name in decoder.node_properties[classes[id]]:
				props[name] = nodes[id].props.get(name)
			seen[id] = props
		results.append([decoder.buffered_ticks(), states, var_to_bytes(seen)])
	DecoderState.write(args[2], results)
	quit()
