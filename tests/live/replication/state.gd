extends RefCounted
## Shared by the replication engine scripts: reading their arguments and input, and writing
## their output. (A generated decoder gives its own newest state with ids in ascending order,
## so that var_to_bytes of it is canonical: sorted_state().)


## The user arguments DECODER_PATH IN OUT as [the decoder's GDScript, bytes_to_var of IN, OUT].
static func arguments() -> Array:
	var args := OS.get_cmdline_user_args()
	return [load(args[0]), bytes_to_var(FileAccess.get_file_as_bytes(args[1])), args[2]]


## Writes var_to_bytes(value) to path.
static func write(path: String, value: Variant) -> void:
	var out := FileAccess.open(path, FileAccess.WRITE)
	out.store_buffer(var_to_bytes(value))
	out.close()
