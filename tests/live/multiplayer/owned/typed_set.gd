extends SceneTree
## What Godot 4.6 keeps when a sync sets a typed script property to a value of another type
## (MultiplayerSynchronizer.set_state sets each one with set_indexed, as here). Each line of
## cases.txt is "<property> <hex of var_to_bytes(value)>"; the property is set from two
## different starting values, so a value the engine refuses leaves the two apart and one it
## takes (converted or not) makes them equal. Prints "CASE <n> SET <hex of the result>" or
## "CASE <n> KEPT", then "DONE".

class Typed extends Node:
	var int_value: int
	var float_value: float
	var bool_value: bool
	var string_value: String
	var vector2_value: Vector2
	var vector3_value: Vector3
	var vector4_value: Vector4
	var quaternion_value: Quaternion
	var bytes_value: PackedByteArray
	var array_value: Array

var starts := {
	"int_value": [123456789, -987654321],
	"float_value": [0.125, -0.375],
	"bool_value": [true, false],
	"string_value": ["start a", "start b"],
	"vector2_value": [Vector2(0.5, 0.25), Vector2(-0.5, 7)],
	"vector3_value": [Vector3(0.5, 0.25, 1), Vector3(-0.5, 7, 2)],
	"vector4_value": [Vector4(0.5, 0.25, 1, 2), Vector4(-0.5, 7, 2, 3)],
	"quaternion_value": [Quaternion(0, 0, 0, 1), Quaternion(0, 0, 1, 0)],
	"bytes_value": [PackedByteArray([9]), PackedByteArray([8, 8])],
	"array_value": [[9], [8, 8]],
}


func _init() -> void:
	var node := Typed.new()
	var lines := FileAccess.get_file_as_string("cases.txt").split("\n", false)
	for n in lines.size():
		var parts := lines[n].split(" ")
		var property := parts[0]
		var value = bytes_to_var(parts[1].hex_decode())
		var after := []
		for start in starts[property]:
			node.set(property, start)
			node.set_indexed(NodePath(":" + property), value)
			after.append(node.get(property))
		var pair: Array = starts[property]
		if var_to_bytes(after[0]) == var_to_bytes(after[1]):
			print("CASE %d SET %s" % [n, var_to_bytes(after[0]).hex_encode()])
		elif after[0] == pair[0] and after[1] == pair[1]:
			print("CASE %d KEPT" % n)
		else:
			print("CASE %d ODD" % n)
	node.free()
	print("DONE")
	quit()
