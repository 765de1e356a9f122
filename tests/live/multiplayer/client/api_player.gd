extends Node2D
## A player of the API test: spawned by the server and named by the id of the client that
## owns it, which gets the authority of its OwnerSynchronizer (aim ALWAYS, presses
## ON_CHANGE; api_player.tscn, written from PlayerInput in tests/support/multiplayer_api_scene.py).
## The owner changes both for STEPS frames; the server must end with the last values.

const STEPS := 40

var aim := Vector2.ZERO
var presses := 0


func _enter_tree() -> void:
	$OwnerSynchronizer.set_multiplayer_authority(str(name).to_int())


func _ready() -> void:
	if str(name) != str(multiplayer.get_unique_id()):
		return
	for i in STEPS:
		aim = Vector2(i, -i)
		if i % 3 == 0:
			presses += 1
		await get_tree().process_frame
	print("INPUT_DONE %s" % var_to_bytes([aim, presses]).hex_encode())
