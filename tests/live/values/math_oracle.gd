# Godot computes every case of tests/live/values/test_math.py: reads a var_to_bytes Array of
# [key, op, cases] (op: an operator or a method name; each case an Array of the receiver and the
# arguments) and writes a Dictionary {key: [result, ...]} with var_to_bytes.
extends SceneTree


func apply(op: String, a: Array) -> Variant:
	match op:
		"+":
			return a[0] + a[1]
		"-":
			return a[0] - a[1]
		"*":
			return a[0] * a[1]
		"/":
			return a[0] / a[1]
		"%":
			return a[0] % a[1]
		"neg":
			return -a[0]
		"end":
			return a[0].end
		"Vector2.from_angle":
			return Vector2.from_angle(a[0])
		"Transform2D(angle, origin)":
			return Transform2D(a[0], a[1])
		"Quaternion(axis, angle)":
			return Quaternion(a[0], a[1])
		"Quaternion.from_euler":
			return Quaternion.from_euler(a[0])
		"Basis.from_euler":
			return Basis.from_euler(a[0], a[1])
		"Basis(Quaternion)":
			return Basis(a[0])
		"Projection.create_perspective":
			return Projection.create_perspective(a[0], a[1], a[2], a[3], a[4])
		"Projection.create_orthogonal":
			return Projection.create_orthogonal(a[0], a[1], a[2], a[3], a[4], a[5])
		"Projection.create_orthogonal_aspect":
			return Projection.create_orthogonal_aspect(a[0], a[1], a[2], a[3], a[4])
		"Projection.create_frustum":
			return Projection.create_frustum(a[0], a[1], a[2], a[3], a[4], a[5])
		"Projection.create_frustum_aspect":
			return Projection.create_frustum_aspect(a[0], a[1], a[2], a[3], a[4], a[5])
		"Projection.create_fit_aabb":
			return Projection.create_fit_aabb(a[0])
		"Projection.create_depth_correction":
			return Projection.create_depth_correction(a[0])
		"Projection.create_light_atlas_rect":
			return Projection.create_light_atlas_rect(a[0])
		"Projection.get_fovy":
			return Projection.get_fovy(a[0], a[1])
	return Callable.create(a[0], op).callv(a.slice(1))


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var jobs: Array = bytes_to_var(FileAccess.get_file_as_bytes(args[0]))
	var out := {}
	for job in jobs:
		var results := []
		for case in job[2]:
			results.append(apply(job[1], case))
		out[job[0]] = results
	var file := FileAccess.open(args[1], FileAccess.WRITE)
	file.store_buffer(var_to_bytes(out))
	file.close()
	quit()
