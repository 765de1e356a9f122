extends Node2D
## A spawned player: server-authority Sync, client-authority Input/InputSync, and RPCs of
## every mode. Sorted RPC names: blob, fast, many, ordered, ping, play_anim, set_input,
## take_damage, values.

var health := 0
var label := ""
var speed := 1.5


func _enter_tree() -> void:
	$Input.set_multiplayer_authority(str(name).to_int())


func _ready() -> void:
	if multiplayer.is_server() or str(name) != str(multiplayer.get_unique_id()):
		return
	print("READY %s position=%s health=%d label=%s" % [name, position, health, label])
	await get_tree().create_timer(0.3).timeout
	set_input.rpc_id(1, Vector2(1, 0))
	set_input.rpc_id(1, Vector2(0, -1))
	for i in 6:
		$Input.direction = Vector2(i, -i)
		if i % 2 == 0:
			$Input.jumps += 1
		await get_tree().process_frame


@rpc
func take_damage(amount: int) -> void:
	health -= amount


@rpc("any_peer")
func set_input(dir: Vector2) -> void:
	print("set_input %s from %d" % [dir, multiplayer.get_remote_sender_id()])


@rpc("authority", "call_local")
func play_anim(anim: String) -> void:
	print("play_anim ", anim)


@rpc
func ping() -> void:
	print("ping")


@rpc
func blob(data := PackedByteArray()) -> void:
	print("blob ", data)


@rpc
func many(a, b, c, d, e, f, g, h) -> void:
	print("many ", [a, b, c, d, e, f, g, h])


@rpc
func values(a, b, c, d, e, f, g, h) -> void:
	print("values ", [a, b, c, d, e, f, g, h])


@rpc("authority", "unreliable")
func fast(x) -> void:
	print("fast ", x)


@rpc("authority", "unreliable_ordered", "call_remote", 1)
func ordered(x) -> void:
	print("ordered ", x)
