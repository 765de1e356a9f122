extends SceneTree
## Godot 4.6's verdict on GDScript sources (tests/live/multiplayer/test_rpc.py): each is
## compiled as a script of its own; a JSON line per source says whether it compiled and,
## if it did, its get_rpc_config() (every @rpc function with the settings it names).
##
## Arguments (after --): IN.json (an array of sources) OUT.jsonl


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var sources: Array = JSON.parse_string(FileAccess.get_file_as_string(args[0]))
	var out := FileAccess.open(args[1], FileAccess.WRITE)
	for source in sources:
		var script := GDScript.new()
		script.source_code = source
		var ok := script.reload() == OK
		var config = script.get_rpc_config() if ok else {}
		out.store_line(JSON.stringify({"ok": ok, "config": config}))
	out.close()
	quit()
