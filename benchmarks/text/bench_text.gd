# Godot's own text and JSON views timed inside the engine, for benchmarks/bench_text.py.
#
# Run: godot --headless --script bench_text.gd -- PAYLOADS_DIR ROUNDS OUT
# Each PAYLOADS_DIR/*.bin is var_to_bytes data of one value. For each, every view is timed
# ROUNDS times with Time.get_ticks_usec (each round one call, or enough calls to last about
# 20 ms for small values) and the median per call is written to OUT, one JSON line per payload:
# to_text (var_to_str), from_text (str_to_var of that text), to_json
# (JSON.stringify(JSON.from_native(v))), from_json (JSON.to_native(JSON.parse_string(t)) of
# that JSON), with the texts' sizes in bytes.
extends SceneTree


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() != 3:
		printerr("usage: PAYLOADS_DIR ROUNDS OUT")
		quit(2)
		return
	quit(_run(args[0], maxi(int(args[1]), 1), args[2]))


func _median_usec(fn: Callable, rounds: int) -> float:
	var t0 := Time.get_ticks_usec()
	fn.call()
	var once := maxf(float(Time.get_ticks_usec() - t0), 1.0)
	var calls := maxi(1, int(20000.0 / once))
	var times: Array[float] = []
	for _r in rounds:
		var start := Time.get_ticks_usec()
		for _i in calls:
			fn.call()
		times.append(float(Time.get_ticks_usec() - start) / calls)
	times.sort()
	return times[times.size() / 2]


func _run(dir_path: String, rounds: int, out_path: String) -> int:
	var files := []
	for name in DirAccess.get_files_at(dir_path):
		if name.ends_with(".bin"):
			files.append(name)
	files.sort()
	var f := FileAccess.open(out_path, FileAccess.WRITE)
	if f == null:
		printerr("cannot write %s" % out_path)
		return 1
	for name in files:
		var v: Variant = bytes_to_var(FileAccess.get_file_as_bytes(dir_path.path_join(name)))
		var text := var_to_str(v)
		var json := JSON.stringify(JSON.from_native(v))
		f.store_line(JSON.stringify({
			"name": name.get_basename(),
			"text_bytes": text.to_utf8_buffer().size(),
			"json_bytes": json.to_utf8_buffer().size(),
			"to_text_us": _median_usec(func() -> void: var_to_str(v), rounds),
			"from_text_us": _median_usec(func() -> void: str_to_var(text), rounds),
			"to_json_us": _median_usec(
				func() -> void: JSON.stringify(JSON.from_native(v)), rounds),
			"from_json_us": _median_usec(
				func() -> void: JSON.to_native(JSON.parse_string(json)), rounds),
		}, "", false))
	f.close()
	return 0
