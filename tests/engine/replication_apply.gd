extends SceneTree

# Applies packets with a generated replication decoder and records what it holds after each.
# Args: FOLDER. Reads FOLDER/decoder.gd and FOLDER/packets.bin ([u32 size][packet] each);
# writes FOLDER/states.bin: per packet [u32 size][var_to_bytes([result, tick, state])].

func _init() -> void:
	var folder: String = OS.get_cmdline_user_args()[0]
	var script = load(folder + "/decoder.gd")
	if script == null or not script.can_instantiate():
		printerr("the generated decoder does not load")
		quit(1)
		return
	var decoder = script.new()
	var data := FileAccess.get_file_as_bytes(folder + "/packets.bin")
	var out := FileAccess.open(folder + "/states.bin", FileAccess.WRITE)
	var pos := 0
	while pos < data.size():
		var size := data.decode_u32(pos)
		var packet := data.slice(pos + 4, pos + 4 + size)
		pos += 4 + size
		var result: int = decoder.apply(packet)
		var record := var_to_bytes([result, decoder.tick, decoder.state()])
		out.store_32(record.size())
		out.store_buffer(record)
	out.close()
	quit()
