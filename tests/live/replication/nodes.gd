extends SceneTree
## The generated decoder's apply_to_nodes(), for tests/live/replication/test_gdscript.py.
##
## Arguments: DECODER_PATH IN OUT. IN holds var_to_bytes([[packet, ...], [call, ...]]). One
## decoder applies the packets in order; after packet i, when call[i] is true, it calls
## apply_to_nodes() with a recorder object per entity (every third call replaces one node).
## OUT gets var_to_bytes of the results: per call, [newest_tick, var_to_bytes({id: {property:
## value}}) with ids sorted and only the properties of the entity's class]; or, if a packet
## fails, its last_error.

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
	var calls: Array = input[1]
	var decoder = script.new()
	var nodes := {}
	var results := []
	var made := 0
	for i in packets.size():
		if decoder.apply(packets[i]) < 0:
			results.append(decoder.last_error)
			break
		if not calls[i]:
			continue
		var classes: Dictionary = decoder.classes
		for id in nodes.keys():
			if not classes.has(id):
				nodes.erase(id)
		for id in classes:
			if not nodes.has(id):
				nodes[id] = Recorder.new()
		made += 1
		if made % 3 == 0 and not nodes.is_empty():
			nodes[nodes.keys()[made % nodes.size()]] = Recorder.new()
		decoder.apply_to_nodes(nodes)
		var ids := nodes.keys()
		ids.sort()
		var seen := {}
		for id in ids:
			var names: Array = decoder.node_properties[classes[id]]
			var props := {}
			for name in names:
				props[name] = nodes[id].props.get(name)
			seen[id] = props
		results.append([decoder.newest_tick, var_to_bytes(seen)])
	DecoderState.write(args[2], results)
	quit()
