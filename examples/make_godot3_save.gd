# Writes examples/godot3_save.sav: a plain Godot 3 save, three File.store_var records.
# Regenerate with:  python -m tools.make_example godot3_save.sav   (runs this in Godot 3.6)
extends SceneTree

func _init():
	var args = OS.get_cmdline_args()
	var f = File.new()
	f.open(args[args.size() - 1], File.WRITE)
	f.store_var({"slot": 1, "player": "Ayla", "level": 12})
	f.store_var(Vector2(128, 64))
	f.store_var(PoolStringArray(["sword", "shield"]))
	f.close()
	quit()
