# Writes examples/user_save.dat: a save made with FileAccess.open_encrypted_with_pass
# (password "secret") holding three store_var records.
# Regenerate with:  python -m tools.make_example user_save.dat   (runs this in Godot 4.6)
extends SceneTree

func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var f := FileAccess.open_encrypted_with_pass(args[0], FileAccess.WRITE, "secret")
	f.store_var({"slot": 1, "player": "Ayla", "level": 12})
	f.store_var(Vector3(10.5, 0.0, -3.25))
	f.store_var(PackedStringArray(["sword", "shield"]))
	f.close()
	quit()
