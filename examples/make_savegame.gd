# Writes examples/savegame.bin: what a game's save looks like after var_to_bytes().
# Regenerate with:  python -m tools.make_example savegame.bin   (runs this in Godot 4.6)
extends SceneTree

func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var inventory: Array[String] = ["sword", "shield", "potion of 治癒"]
	var save := {
		"version": 3,
		"player": {
			"name": "Ayla",
			"level": 12,
			"xp": 4_294_967_296,
			"position": Vector3(10.5, 0.0, -3.25),
			"facing": Quaternion(0.0, 0.7071068, 0.0, 0.7071068),
			"color": Color(0.9, 0.2, 0.3, 1.0),
			"inventory": inventory,
			"stats": {&"str": 14, &"dex": 17, &"luck": 0.1},
		},
		"checkpoints": PackedVector2Array([Vector2(0, 0), Vector2(128, 64)]),
		"map_seen": PackedByteArray([0xFF, 0x0F, 0x00, 0x81]),
		"last_scene": NodePath("/root/World/Level2:position"),
		"played_seconds": 5025.75,
	}
	var f := FileAccess.open(args[0], FileAccess.WRITE)
	f.store_buffer(var_to_bytes(save))
	f.close()
	quit()
