extends RefCounted
## Shared by the replication engine scripts: a generated decoder's newest state, as
## [state, classes] with entity ids in ascending order (so var_to_bytes of it is canonical).


static func sorted_state(decoder: Object) -> Array:
	var ids: Array = decoder.state.keys()
	ids.sort()
	var state := {}
	var classes := {}
	for id in ids:
		state[id] = decoder.state[id]
		classes[id] = decoder.classes[id]
	return [state, classes]
