# Godot 4 oracle for gdvariant: generates reference values, decodes bytes, and benchmarks.
#
# Run: godot --headless --script godot4_oracle.gd -- MODE ARGS...
#   generate SEED COUNT OUT          JSON Lines of values (bytes, text and an exact description)
#   decode IN OUT                    IN: "HEX<TAB>ALLOW" lines; OUT: one JSON verdict per line
#   text IN OUT                      IN: texts, each a u32 length + UTF-8; OUT: per text, the bytes
#                                    (with objects) of str_to_var(text) and var_to_str of that value
#   json IN OUT                      IN: per value, a u32 length + var_to_bytes_with_objects bytes,
#                                    then a u32 length + UTF-8 JSON text; OUT: per value, the
#                                    engine's JSON.stringify(JSON.from_native(v)) (and with
#                                    full_objects), and the bytes of JSON.to_native of the text
#                                    and of the engine's own text
#   bench PAYLOADS_DIR ITERATIONS OUT  timings of var_to_bytes/bytes_to_var per *.bin payload
#   client KIND HOST PORT SEED COUNT  one live network session as a client; KIND is stream
#                                    (StreamPeerTCP), pps (PacketPeerStream), udp (PacketPeerUDP)
#                                    or ws (WebSocketPeer)
#   limits OUT                       the framing size limits, as one JSON object
#   savefiles DIR SEED COUNT         save files in every container mode (see tests/live/codec/test_savefiles.py)
#   readsaves DIR OUT                read every *.sav in DIR; one JSON line of records per file
#   server PORT_FILE CLIENTS SEED COUNT  a TCPServer on a free port (written to PORT_FILE) that
#                                    runs one session with each of CLIENTS clients in turn
#
# describe(v) turns a Variant into an exact JSON tree (see the Python tests for the format):
# floats as 16 hex digits of their little-endian double bits, strings as UTF-8 hex, ints as
# decimal strings (integer-vector components as plain JSON numbers).
extends SceneTree

const INT32_MAX := 2147483647
const INT32_MIN := -2147483648
const INT64_MAX := 9223372036854775807
const INT64_MIN := -9223372036854775807 - 1
const MAX_DEPTH := 5

var rng := RandomNumberGenerator.new()
var _scratch := PackedByteArray()
var _keep: Array = []  # objects that must stay alive while their ids are written


func _init() -> void:
	_scratch.resize(8)
	var args := OS.get_cmdline_user_args()
	var code := 2
	if args.size() == 4 and args[0] == "generate":
		code = _generate(int(args[1]), int(args[2]), args[3])
	elif args.size() == 3 and args[0] == "decode":
		code = _decode(args[1], args[2])
	elif args.size() == 3 and args[0] == "text":
		code = _text(args[1], args[2])
	elif args.size() == 3 and args[0] == "json":
		code = _json_native(args[1], args[2])
	elif args.size() == 4 and args[0] == "bench":
		code = _bench(args[1], int(args[2]), args[3])
	elif args.size() == 6 and args[0] == "client":
		code = _net_client(args[1], args[2], int(args[3]), int(args[4]), int(args[5]))
	elif args.size() == 4 and args[0] == "savefiles":
		code = _savefiles(args[1], int(args[2]), int(args[3]))
	elif args.size() == 3 and args[0] == "readsaves":
		code = _readsaves(args[1], args[2])
	elif args.size() == 2 and args[0] == "limits":
		code = _limits(args[1])
	elif args.size() == 5 and args[0] == "server":
		code = _net_server(args[1], int(args[2]), int(args[3]), int(args[4]))
	else:
		printerr("usage: generate SEED COUNT OUT | decode IN OUT | bench PAYLOADS_DIR ITERATIONS OUT"
				+ " | client KIND HOST PORT SEED COUNT | server PORT_FILE CLIENTS SEED COUNT | limits OUT")
	quit(code)


# ---------------------------------------------------------------- JSON helpers

func _jstr(s: String) -> String:
	# JSON.stringify writes "\v" (invalid JSON) and raw control characters; escape them all,
	# plus U+0085/U+2028/U+2029, which some line splitters (Python's str.splitlines) treat as breaks.
	var parts := PackedStringArray()
	var start := 0
	var n := s.length()
	for i in n:
		var c := s.unicode_at(i)
		if c < 0x20 or c == 0x22 or c == 0x5C or c == 0x7F or c == 0x85 or c == 0x2028 or c == 0x2029:
			if i > start:
				parts.append(s.substr(start, i - start))
			if c == 0x22:
				parts.append("\\\"")
			elif c == 0x5C:
				parts.append("\\\\")
			elif c == 0x0A:
				parts.append("\\n")
			elif c == 0x09:
				parts.append("\\t")
			else:
				parts.append("\\u%04x" % c)
			start = i + 1
	if start == 0:
		return "\"" + s + "\""
	if start < n:
		parts.append(s.substr(start))
	return "\"" + "".join(parts) + "\""


func _json(root: Variant) -> String:
	# Iterative JSON writer for describe() trees (arrays, strings, ints, bools, null):
	# JSON.stringify refuses trees deeper than its limit ("JSON structure is too deep").
	# StringName entries on the stack are raw punctuation tokens.
	var parts := PackedStringArray()
	var stack := [root]
	while not stack.is_empty():
		var x: Variant = stack.pop_back()
		match typeof(x):
			TYPE_STRING_NAME:
				parts.append(String(x))
			TYPE_STRING:
				parts.append(_jstr(x))
			TYPE_INT:
				parts.append(str(x))
			TYPE_BOOL:
				parts.append("true" if x else "false")
			TYPE_NIL:
				parts.append("null")
			TYPE_ARRAY:
				stack.append(&"]")
				for i in range(x.size() - 1, -1, -1):
					stack.append(x[i])
					if i > 0:
						stack.append(&",")
				stack.append(&"[")
			_:
				printerr("_json: unexpected type %d" % typeof(x))
				parts.append("null")
	return "".join(parts)


func _open_read(path: String) -> FileAccess:
	return _open(path, FileAccess.READ, "read")


func _open_write(path: String) -> FileAccess:
	return _open(path, FileAccess.WRITE, "write")


# The file at path, or null after saying on stderr why it would not open.
func _open(path: String, mode: FileAccess.ModeFlags, verb: String) -> FileAccess:
	var f := FileAccess.open(path, mode)
	if f == null:
		printerr("cannot %s %s: %s" % [verb, path, error_string(FileAccess.get_open_error())])
	return f


# ---------------------------------------------------------------- describe

func _fh(f: float) -> String:
	return PackedFloat64Array([f]).to_byte_array().hex_encode()


func _u8(s: String) -> String:
	return s.to_utf8_buffer().hex_encode()


func _fhs(values: Array) -> Array:
	var out := []
	for f in values:
		out.append(_fh(f))
	return out


func _elem_type(builtin: int, cls: StringName, script: Variant) -> Variant:
	if builtin == TYPE_NIL:
		return null
	if script != null:
		return ["script", String(script.resource_path)]
	if builtin == TYPE_OBJECT:
		return ["class", String(cls)]
	return ["builtin", builtin]


func describe(root: Variant) -> Variant:
	# Iterative, so that values nested up to the engine's 1024 limit do not hit GDScript's
	# call-stack limit. Each job is [value, target array, index in target].
	var holder := [null]
	var stack := [[root, holder, 0]]
	while not stack.is_empty():
		var job: Array = stack.pop_back()
		job[1][job[2]] = _describe_one(job[0], stack)
	return holder[0]


func _describe_one(v: Variant, stack: Array) -> Variant:
	match typeof(v):
		TYPE_NIL:
			return ["nil"]
		TYPE_BOOL:
			return ["bool", v]
		TYPE_INT:
			return ["int", str(v)]
		TYPE_FLOAT:
			return ["float", _fh(v)]
		TYPE_STRING:
			return ["String", _u8(v)]
		TYPE_VECTOR2:
			return ["Vector2", _fhs([v.x, v.y])]
		TYPE_VECTOR2I:
			return ["Vector2i", [v.x, v.y]]
		TYPE_RECT2:
			return ["Rect2", _fhs([v.position.x, v.position.y, v.size.x, v.size.y])]
		TYPE_RECT2I:
			return ["Rect2i", [v.position.x, v.position.y, v.size.x, v.size.y]]
		TYPE_VECTOR3:
			return ["Vector3", _fhs([v.x, v.y, v.z])]
		TYPE_VECTOR3I:
			return ["Vector3i", [v.x, v.y, v.z]]
		TYPE_TRANSFORM2D:
			return ["Transform2D", _fhs([v.x.x, v.x.y, v.y.x, v.y.y, v.origin.x, v.origin.y])]
		TYPE_VECTOR4:
			return ["Vector4", _fhs([v.x, v.y, v.z, v.w])]
		TYPE_VECTOR4I:
			return ["Vector4i", [v.x, v.y, v.z, v.w]]
		TYPE_PLANE:
			return ["Plane", _fhs([v.normal.x, v.normal.y, v.normal.z, v.d])]
		TYPE_QUATERNION:
			return ["Quaternion", _fhs([v.x, v.y, v.z, v.w])]
		TYPE_AABB:
			return ["AABB", _fhs([v.position.x, v.position.y, v.position.z, v.size.x, v.size.y, v.size.z])]
		TYPE_BASIS:
			return ["Basis", _fhs([v.x.x, v.x.y, v.x.z, v.y.x, v.y.y, v.y.z, v.z.x, v.z.y, v.z.z])]
		TYPE_TRANSFORM3D:
			var b: Basis = v.basis
			return ["Transform3D", _fhs([b.x.x, b.x.y, b.x.z, b.y.x, b.y.y, b.y.z, b.z.x, b.z.y, b.z.z,
					v.origin.x, v.origin.y, v.origin.z])]
		TYPE_PROJECTION:
			var comps := []
			for col in [v.x, v.y, v.z, v.w]:
				comps.append_array([col.x, col.y, col.z, col.w])
			return ["Projection", _fhs(comps)]
		TYPE_COLOR:
			return ["Color", _fhs([v.r, v.g, v.b, v.a])]
		TYPE_STRING_NAME:
			return ["StringName", _u8(String(v))]
		TYPE_NODE_PATH:
			var names := []
			for i in v.get_name_count():
				names.append(_u8(String(v.get_name(i))))
			var subs := []
			for i in v.get_subname_count():
				subs.append(_u8(String(v.get_subname(i))))
			return ["NodePath", v.is_absolute(), names, subs]
		TYPE_RID:
			return ["RID", str(v.get_id())]
		TYPE_OBJECT:
			if not is_instance_valid(v):
				return ["nil"]
			var props := []
			for p in v.get_property_list():
				if p["usage"] & PROPERTY_USAGE_STORAGE:
					var pair := [String(p["name"]), null]
					props.append(pair)
					stack.append([v.get(p["name"]), pair, 1])
			return ["Object", v.get_class(), str(v.get_instance_id()), props]
		TYPE_CALLABLE:
			return ["Callable"]
		TYPE_SIGNAL:
			return ["Signal", _u8(String(v.get_name())), str(v.get_object_id())]
		TYPE_DICTIONARY:
			var kt: Variant = null
			if v.is_typed_key():
				kt = _elem_type(v.get_typed_key_builtin(), v.get_typed_key_class_name(), v.get_typed_key_script())
			var vt: Variant = null
			if v.is_typed_value():
				vt = _elem_type(v.get_typed_value_builtin(), v.get_typed_value_class_name(),
						v.get_typed_value_script())
			var keys: Array = v.keys()
			var values: Array = v.values()
			var pairs := []
			for i in keys.size():
				var pair := [null, null]
				pairs.append(pair)
				stack.append([keys[i], pair, 0])
				stack.append([values[i], pair, 1])
			return ["Dictionary", kt, vt, pairs]
		TYPE_ARRAY:
			var et: Variant = null
			if v.is_typed():
				et = _elem_type(v.get_typed_builtin(), v.get_typed_class_name(), v.get_typed_script())
			var items := []
			items.resize(v.size())
			for i in v.size():
				stack.append([v[i], items, i])
			return ["Array", et, items]
		TYPE_PACKED_BYTE_ARRAY:
			return ["PackedByteArray", v.hex_encode()]
		TYPE_PACKED_INT32_ARRAY:
			return ["PackedInt32Array", Array(v)]
		TYPE_PACKED_INT64_ARRAY:
			var out := []
			for x in v:
				out.append(str(x))
			return ["PackedInt64Array", out]
		TYPE_PACKED_FLOAT32_ARRAY:
			return ["PackedFloat32Array", _fhs(Array(v))]
		TYPE_PACKED_FLOAT64_ARRAY:
			return ["PackedFloat64Array", _fhs(Array(v))]
		TYPE_PACKED_STRING_ARRAY:
			var out := []
			for s in v:
				out.append(_u8(s))
			return ["PackedStringArray", out]
		TYPE_PACKED_VECTOR2_ARRAY:
			var out := []
			for e in v:
				out.append(_fhs([e.x, e.y]))
			return ["PackedVector2Array", out]
		TYPE_PACKED_VECTOR3_ARRAY:
			var out := []
			for e in v:
				out.append(_fhs([e.x, e.y, e.z]))
			return ["PackedVector3Array", out]
		TYPE_PACKED_COLOR_ARRAY:
			var out := []
			for e in v:
				out.append(_fhs([e.r, e.g, e.b, e.a]))
			return ["PackedColorArray", out]
		TYPE_PACKED_VECTOR4_ARRAY:
			var out := []
			for e in v:
				out.append(_fhs([e.x, e.y, e.z, e.w]))
			return ["PackedVector4Array", out]
	printerr("describe: unhandled type %d" % typeof(v))
	return ["unknown", typeof(v)]


# ---------------------------------------------------------------- generate

func _generate(seed_value: int, count: int, out_path: String) -> int:
	rng.seed = seed_value
	var cases := _traps()
	var total := maxi(count, cases.size())
	var f := _open_write(out_path)
	if f == null:
		return 1
	f.store_line('{"engine": %s, "seed": %d, "count": %d}' % [
			_jstr(Engine.get_version_info().string), seed_value, total])
	var i := 0
	for c in cases:
		_write_value(f, i, c[0], c[1])
		i += 1
	while i < total:
		var v: Variant = _rand_value(0)
		_write_value(f, i, "random", v)
		i += 1
	f.close()
	return 0


func _write_value(f: FileAccess, i: int, name: String, v: Variant) -> void:
	var line := '{"i": %d, "name": %s, "text": %s, "bytes": "%s", "bytes_objects": "%s", "value": %s}' % [
			i, _jstr(name), _jstr(var_to_str(v)), var_to_bytes(v).hex_encode(),
			var_to_bytes_with_objects(v).hex_encode(), _json(describe(v))]
	f.store_line(line)


func _f64bits(hi: int, lo: int) -> float:
	_scratch.encode_u32(0, lo)
	_scratch.encode_u32(4, hi)
	return _scratch.decode_double(0)


func _f32bits(bits: int) -> float:
	_scratch.encode_u32(0, bits)
	return _scratch.decode_float(0)


func _nest_arrays(levels: int, leaf: Variant) -> Variant:
	var v: Variant = leaf
	for _i in levels:
		v = [v]
	return v


func _nest_mixed(levels: int) -> Variant:
	var v: Variant = "bottom"
	for i in levels:
		match i % 3:
			0:
				v = [i, v]
			1:
				v = {"k%d" % i: v}
			2:
				v = {i: v, "x": [v]} if i < 6 else {i: v}
	return v


func _obj_resource(rname: String) -> Resource:
	var r := Resource.new()
	r.resource_name = rname
	_keep.append(r)
	return r


func _trap_objects() -> Array:
	var out := []
	out.append(["obj_resource", _obj_resource("hi")])
	var rc := RefCounted.new()
	_keep.append(rc)
	out.append(["obj_refcounted", rc])
	var g := Gradient.new()
	g.offsets = PackedFloat32Array([0.0, 0.25, 1.0])
	g.colors = PackedColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0, 0, 1)])
	g.resource_name = "grad"
	_keep.append(g)
	out.append(["obj_gradient", g])
	var gt := GradientTexture1D.new()
	gt.gradient = g
	gt.width = 64
	_keep.append(gt)
	out.append(["obj_nested_gradient_texture", gt])
	var js := JSON.new()
	js.data = {"list": [1, 2.5, "x"], "v": Vector2(1, 2), &"sn": null}
	_keep.append(js)
	out.append(["obj_json_data", js])
	var cv := Curve.new()
	cv.add_point(Vector2(0, 0.5))
	cv.add_point(Vector2(1, 1), 0.5, -0.5)
	_keep.append(cv)
	out.append(["obj_curve", cv])
	var sb := StyleBoxFlat.new()
	sb.bg_color = Color(0.1, 0.2, 0.3, 0.4)
	sb.corner_radius_top_left = 7
	_keep.append(sb)
	out.append(["obj_stylebox", sb])
	var fv := FontVariation.new()
	fv.variation_transform = Transform2D(Vector2(1, 0.25), Vector2(0, 1), Vector2(3, 4))
	fv.opentype_features = {1: 2}
	_keep.append(fv)
	out.append(["obj_font_variation", fv])
	var img := Image.create_empty(2, 1, false, Image.FORMAT_RGBA8)
	img.set_pixel(0, 0, Color(1, 0, 0, 1))
	_keep.append(img)
	out.append(["obj_image", img])
	var spb := StreamPeerBuffer.new()
	spb.data_array = PackedByteArray([1, 2, 3, 4, 5])
	_keep.append(spb)
	out.append(["obj_stream_peer_buffer", spb])
	var rn := RandomNumberGenerator.new()
	rn.seed = 12345
	_keep.append(rn)
	out.append(["obj_rng", rn])
	var key := InputEventKey.new()
	key.keycode = KEY_A
	key.pressed = true
	key.unicode = 0x1F600
	_keep.append(key)
	out.append(["obj_input_event_key", key])
	var freed := Object.new()
	freed.free()
	out.append(["obj_freed_in_array", [freed]])
	out.append(["obj_null_in_array", [null, 1]])
	var r2 := _obj_resource("shared")
	out.append(["obj_twice_in_array", [r2, r2]])
	out.append(["obj_in_dict_value", {"res": _obj_resource("v"), "n": 1}])
	out.append(["obj_in_nested_array", [[_obj_resource("deep")], 2]])
	return out


func _traps() -> Array:
	var t := []
	# nil / bool
	t.append(["nil", null])
	t.append(["bool_false", false])
	t.append(["bool_true", true])
	# ints
	for pair in [["int_0", 0], ["int_1", 1], ["int_m1", -1], ["int_127", 127], ["int_128", 128],
			["int_255", 255], ["int_256", 256], ["int_65535", 65535],
			["int_i32_max", INT32_MAX], ["int_i32_max_m1", INT32_MAX - 1], ["int_i32_max_p1", INT32_MAX + 1],
			["int_i32_min", INT32_MIN], ["int_i32_min_p1", INT32_MIN + 1], ["int_i32_min_m1", INT32_MIN - 1],
			["int_u32_max", 4294967295], ["int_2p32", 4294967296], ["int_m2p32", -4294967296],
			["int_i64_max", INT64_MAX], ["int_i64_max_m1", INT64_MAX - 1],
			["int_i64_min", INT64_MIN], ["int_i64_min_p1", INT64_MIN + 1]]:
		t.append(pair)
	# floats
	t.append(["float_0", 0.0])
	t.append(["float_neg0", -0.0])
	t.append(["float_0_1", 0.1])
	t.append(["float_1", 1.0])
	t.append(["float_m1", -1.0])
	t.append(["float_0_15625", 0.15625])
	t.append(["float_0_5", 0.5])
	t.append(["float_m2_5", -2.5])
	t.append(["float_third", 1.0 / 3.0])
	t.append(["float_inf", INF])
	t.append(["float_ninf", -INF])
	t.append(["float_nan", NAN])
	t.append(["float_nan_payload", _f64bits(0x7FF80000, 1)])
	t.append(["float_nan_negative", _f64bits(0xFFF80000, 0)])
	t.append(["float_1e300", 1e300])
	t.append(["float_m1e300", -1e300])
	t.append(["float_f64_max", 1.7976931348623157e308])
	t.append(["float_f64_min_normal", _f64bits(0x00100000, 0)])
	t.append(["float_f64_min_denormal", _f64bits(0, 1)])
	t.append(["float_f64_denormal", _f64bits(0x000FFFFF, 0xFFFFFFFF)])
	t.append(["float_f32_min_denormal", _f32bits(1)])
	t.append(["float_f32_max_denormal", _f32bits(0x007FFFFF)])
	t.append(["float_f32_min_normal", _f32bits(0x00800000)])
	t.append(["float_f32_max", _f32bits(0x7F7FFFFF)])
	t.append(["float_3_4e38", 3.4e38])
	t.append(["float_1e39", 1e39])
	t.append(["float_2p24", 16777216.0])
	t.append(["float_2p24_p1", 16777217.0])
	t.append(["float_1e_45", 1e-45])
	t.append(["float_100", 100.0])
	# strings
	var ascii := "abcdefgh"
	for n in 9:
		t.append(["string_ascii_len%d" % n, ascii.substr(0, n)])
	t.append(["string_e_acute", "é"])
	t.append(["string_cjk", "日本語"])
	t.append(["string_emoji", "😀"])
	t.append(["string_mixed", "a😀é日b"])
	t.append(["string_bom_leading", String.chr(0xFEFF) + "abc"])
	t.append(["string_bom_only", String.chr(0xFEFF)])
	t.append(["string_bom_inner", "a" + String.chr(0xFEFF) + "b"])
	t.append(["string_escapes", "tab\tnl\nquote\"back\\slash"])
	t.append(["string_controls", String.chr(1) + String.chr(0x0B) + String.chr(0x7F) + String.chr(0x1F)])
	t.append(["string_noncharacters", String.chr(0xFFFE) + String.chr(0xFFFF) + String.chr(0x10FFFF)])
	t.append(["string_long", "0123456789".repeat(100)])
	# StringName
	for n in 9:
		t.append(["stringname_len%d" % n, StringName(ascii.substr(0, n))])
	t.append(["stringname_unicode", &"é日😀"])
	# NodePath
	for pair in [["nodepath_a_b_c", "a/b:c"], ["nodepath_root", "/root"], ["nodepath_empty", ""],
			["nodepath_parent_x", "../x"], ["nodepath_prop_sub", ":prop:sub"], ["nodepath_slash", "/"],
			["nodepath_dot", "."], ["nodepath_abs_props", "/root/Main/Player:position:x"],
			["nodepath_abs_prop_only", "/:a"], ["nodepath_unicode", "é/日本:ü😀"],
			["nodepath_pad", "abc/abcd/abcde:ab:abcdefg"]]:
		t.append([pair[0], NodePath(pair[1])])
	# math types
	t.append(["vector2", Vector2(1.5, -2.25)])
	t.append(["vector2_f32_rounded", Vector2(0.1, -0.0)])
	t.append(["vector2_inf_nan", Vector2(INF, NAN)])
	t.append(["vector2i", Vector2i(INT32_MIN, INT32_MAX)])
	t.append(["rect2", Rect2(1, 2, 3, 4)])
	t.append(["rect2i", Rect2i(-1, -2, 3, 4)])
	t.append(["vector3", Vector3(1, 2, 3)])
	t.append(["vector3i", Vector3i(-7, 0, 7)])
	t.append(["transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))])
	t.append(["transform2d_identity", Transform2D()])
	t.append(["transform2d_rotated", Transform2D(0.5, Vector2(10, 20))])
	t.append(["vector4", Vector4(1, 2, 3, 4)])
	t.append(["vector4i", Vector4i(1, -2, 3, -4)])
	t.append(["plane", Plane(1, 2, 3, 4)])
	t.append(["quaternion", Quaternion(1, 2, 3, 4)])
	t.append(["quaternion_identity", Quaternion()])
	t.append(["aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))])
	t.append(["basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))])
	t.append(["basis_identity", Basis()])
	t.append(["transform3d", Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
			Vector3(10, 11, 12))])
	t.append(["projection", Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12),
			Vector4(13, 14, 15, 16))])
	t.append(["projection_identity", Projection()])
	t.append(["color", Color(0.1, 0.2, 0.3, 0.4)])
	t.append(["color_opaque", Color(1, 0, 0)])
	t.append(["color_hdr", Color(2, -1, 0.5, 0)])
	# RID
	t.append(["rid_default", RID()])
	t.append(["rid_1", rid_from_int64(1)])
	t.append(["rid_m1", rid_from_int64(-1)])
	t.append(["rid_2p40", rid_from_int64(1 << 40)])
	t.append(["rid_i64_min", rid_from_int64(INT64_MIN)])
	# objects
	t.append_array(_trap_objects())
	# Callable / Signal
	t.append(["callable", Callable(self, "quit")])
	t.append(["callable_empty", Callable()])
	t.append(["callable_in_array", [Callable(self, "quit"), 1]])
	var sig_res := _obj_resource("sig")
	t.append(["signal", Signal(sig_res, "changed")])
	t.append(["signal_scenetree", Signal(self, "process_frame")])
	t.append(["signal_empty", Signal()])
	# containers
	t.append(["array_empty", []])
	t.append(["dict_empty", {}])
	t.append(["array_mixed", [1, "a", 2.5, null, true, Vector2(1, 2), &"sn", NodePath("x")]])
	t.append(["dict_mixed", {"a": 1, 2: "b", 3.5: [1], null: {}, Vector3i(1, 2, 3): false}])
	var d1 := {}
	d1[1] = "int"
	d1[1.0] = "float"
	d1[true] = "bool"
	t.append(["dict_keys_1_1f_true", d1])
	var d2 := {}
	d2[0] = "int0"
	d2[0.0] = "float0"
	d2[false] = "false"
	d2[null] = "nil"
	d2[""] = "empty"
	t.append(["dict_keys_falsy", d2])
	var d3 := {}
	d3["x"] = 1
	d3[&"x"] = 2
	t.append(["dict_keys_string_then_stringname", d3])
	var d4 := {}
	d4[&"x"] = 1
	d4["x"] = 2
	t.append(["dict_keys_stringname_then_string", d4])
	var d5 := {}
	d5[0.0] = "zero"
	d5[-0.0] = "negzero"
	t.append(["dict_keys_zero_negzero", d5])
	var d6 := {}
	d6[[1, 2]] = "array"
	d6[{"a": 1}] = "dict"
	d6[[]] = "empty array"
	d6[{}] = "empty dict"
	d6[Array([1, 2], TYPE_INT, &"", null)] = "typed array"
	t.append(["dict_container_keys", d6])
	var d7 := {}
	d7[Vector2(1, 2)] = "v2"
	d7[Vector2i(1, 2)] = "v2i"
	d7[Vector3(1, 2, 0)] = "v3"
	t.append(["dict_vector_keys", d7])
	var d8 := {}
	d8["a"] = 1
	d8[NodePath("a")] = 2
	d8[&"b"] = 3
	t.append(["dict_string_nodepath_keys", d8])
	var d9 := {}
	for k in [3, 1, 2, "c", "a", "b"]:
		d9[k] = k
	t.append(["dict_insertion_order", d9])
	# deep nesting
	t.append(["nest_arrays_50", _nest_arrays(50, 1)])
	t.append(["nest_mixed_50", _nest_mixed(50)])
	t.append(["nest_arrays_200", _nest_arrays(200, "leaf")])
	var dn: Variant = null
	for i in 100:
		dn = {i: dn}
	t.append(["nest_dicts_100", dn])
	# packed arrays
	t.append(["pba_empty", PackedByteArray()])
	for n in range(1, 6):
		var b := PackedByteArray()
		for j in n:
			b.append(250 + j)
		t.append(["pba_len%d" % n, b])
	t.append(["pi32_empty", PackedInt32Array()])
	t.append(["pi32", PackedInt32Array([INT32_MIN, -1, 0, 1, INT32_MAX])])
	t.append(["pi64_empty", PackedInt64Array()])
	t.append(["pi64", PackedInt64Array([INT64_MIN, -1, 0, INT32_MAX + 1, INT64_MAX])])
	t.append(["pf32_empty", PackedFloat32Array()])
	t.append(["pf32", PackedFloat32Array([0.1, -0.0, INF, -INF, NAN, 1.0, 3.4e38, _f32bits(1)])])
	t.append(["pf64_empty", PackedFloat64Array()])
	t.append(["pf64", PackedFloat64Array([0.1, -0.0, INF, -INF, NAN, 1.0, _f64bits(0, 1), 1e300])])
	t.append(["pstr_empty", PackedStringArray()])
	t.append(["pstr", PackedStringArray(["", "a", "ab", "abc", "abcd", "é", "😀", "日本語"])])
	t.append(["pv2_empty", PackedVector2Array()])
	t.append(["pv2", PackedVector2Array([Vector2(1, 2), Vector2(-0.5, 0.1)])])
	t.append(["pv3_empty", PackedVector3Array()])
	t.append(["pv3", PackedVector3Array([Vector3(1, 2, 3), Vector3(-1, INF, 0.1)])])
	t.append(["pcolor_empty", PackedColorArray()])
	t.append(["pcolor", PackedColorArray([Color(0.1, 0.2, 0.3, 0.4), Color(1, 1, 1, 1)])])
	t.append(["pv4_empty", PackedVector4Array()])
	t.append(["pv4", PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-0.0, 0.1, INF, -5)])])
	# typed arrays
	t.append(["tarr_int", Array([1, 2, 3], TYPE_INT, &"", null)])
	t.append(["tarr_int_empty", Array([], TYPE_INT, &"", null)])
	var sa: Array[String] = ["a", "bc", ""]
	t.append(["tarr_string", sa])
	var sa_empty: Array[String] = []
	t.append(["tarr_string_empty", sa_empty])
	t.append(["tarr_float", Array([1.0, 0.1, -0.0], TYPE_FLOAT, &"", null)])
	t.append(["tarr_stringname", Array([&"a", &"b"], TYPE_STRING_NAME, &"", null)])
	t.append(["tarr_vector2", Array([Vector2(1, 2)], TYPE_VECTOR2, &"", null)])
	t.append(["tarr_array", Array([[1], []], TYPE_ARRAY, &"", null)])
	t.append(["tarr_dictionary", Array([{}, {"a": 1}], TYPE_DICTIONARY, &"", null)])
	t.append(["tarr_pba", Array([PackedByteArray([1])], TYPE_PACKED_BYTE_ARRAY, &"", null)])
	t.append(["tarr_pv4", Array([PackedVector4Array()], TYPE_PACKED_VECTOR4_ARRAY, &"", null)])
	t.append(["tarr_resource_empty", Array([], TYPE_OBJECT, &"Resource", null)])
	t.append(["tarr_resource", Array([_obj_resource("e1"), _obj_resource("e2")], TYPE_OBJECT, &"Resource", null)])
	t.append(["tarr_resource_null", Array([null], TYPE_OBJECT, &"Resource", null)])
	var rc2 := RefCounted.new()
	_keep.append(rc2)
	t.append(["tarr_refcounted", Array([rc2], TYPE_OBJECT, &"RefCounted", null)])
	t.append(["tarr_object", Array([_obj_resource("o")], TYPE_OBJECT, &"Object", null)])
	t.append(["tarr_object_empty", Array([], TYPE_OBJECT, &"Object", null)])
	t.append(["tarr_nested_in_array", [Array([7], TYPE_INT, &"", null), Array([], TYPE_OBJECT, &"Resource", null)]])
	t.append(["tarr_in_dict", {"ints": Array([1], TYPE_INT, &"", null)}])
	# typed dictionaries
	t.append(["tdict_int_string", Dictionary({1: "a", 2: "b"}, TYPE_INT, &"", null, TYPE_STRING, &"", null)])
	t.append(["tdict_int_int_empty", Dictionary({}, TYPE_INT, &"", null, TYPE_INT, &"", null)])
	t.append(["tdict_key_only", Dictionary({"a": 1, "b": [1]}, TYPE_STRING, &"", null, TYPE_NIL, &"", null)])
	t.append(["tdict_value_only", Dictionary({1: 1.5, "x": 2.0}, TYPE_NIL, &"", null, TYPE_FLOAT, &"", null)])
	t.append(["tdict_stringname_resource", Dictionary({&"r": _obj_resource("dv")}, TYPE_STRING_NAME, &"", null,
			TYPE_OBJECT, &"Resource", null)])
	t.append(["tdict_resource_int", Dictionary({_obj_resource("dk"): 1}, TYPE_OBJECT, &"Resource", null,
			TYPE_INT, &"", null)])
	t.append(["tdict_resource_resource_empty", Dictionary({}, TYPE_OBJECT, &"Resource", null,
			TYPE_OBJECT, &"Resource", null)])
	t.append(["tdict_key_class_only", Dictionary({}, TYPE_OBJECT, &"RefCounted", null, TYPE_NIL, &"", null)])
	t.append(["tdict_value_class_only", Dictionary({1: null}, TYPE_NIL, &"", null, TYPE_OBJECT, &"Object", null)])
	t.append(["tdict_vector2i_array", Dictionary({Vector2i(1, 2): [1]}, TYPE_VECTOR2I, &"", null,
			TYPE_ARRAY, &"", null)])
	t.append(["tdict_nested", [Dictionary({1: 2}, TYPE_INT, &"", null, TYPE_INT, &"", null)]])
	return t


# ---------------------------------------------------------------- random values

const LEAF_TYPES := [TYPE_NIL, TYPE_BOOL, TYPE_INT, TYPE_FLOAT, TYPE_STRING, TYPE_VECTOR2, TYPE_VECTOR2I,
		TYPE_RECT2, TYPE_RECT2I, TYPE_VECTOR3, TYPE_VECTOR3I, TYPE_TRANSFORM2D, TYPE_VECTOR4, TYPE_VECTOR4I,
		TYPE_PLANE, TYPE_QUATERNION, TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM3D, TYPE_PROJECTION, TYPE_COLOR,
		TYPE_STRING_NAME, TYPE_NODE_PATH, TYPE_RID, TYPE_CALLABLE, TYPE_SIGNAL, TYPE_PACKED_BYTE_ARRAY,
		TYPE_PACKED_INT32_ARRAY, TYPE_PACKED_INT64_ARRAY, TYPE_PACKED_FLOAT32_ARRAY, TYPE_PACKED_FLOAT64_ARRAY,
		TYPE_PACKED_STRING_ARRAY, TYPE_PACKED_VECTOR2_ARRAY, TYPE_PACKED_VECTOR3_ARRAY,
		TYPE_PACKED_COLOR_ARRAY, TYPE_PACKED_VECTOR4_ARRAY]

# Builtin element types for random typed arrays (no NIL: that is "untyped").
const ARRAY_ELEMENT_TYPES := [TYPE_BOOL, TYPE_INT, TYPE_FLOAT, TYPE_STRING, TYPE_VECTOR2, TYPE_VECTOR2I,
		TYPE_RECT2, TYPE_VECTOR3, TYPE_VECTOR3I, TYPE_TRANSFORM2D, TYPE_VECTOR4, TYPE_PLANE, TYPE_QUATERNION,
		TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM3D, TYPE_PROJECTION, TYPE_COLOR, TYPE_STRING_NAME,
		TYPE_NODE_PATH, TYPE_RID, TYPE_CALLABLE, TYPE_SIGNAL, TYPE_DICTIONARY, TYPE_ARRAY,
		TYPE_PACKED_BYTE_ARRAY, TYPE_PACKED_INT32_ARRAY, TYPE_PACKED_STRING_ARRAY, TYPE_PACKED_VECTOR4_ARRAY]

const KEY_TYPES := [TYPE_INT, TYPE_STRING, TYPE_STRING_NAME, TYPE_FLOAT, TYPE_VECTOR2I, TYPE_BOOL,
		TYPE_NODE_PATH, TYPE_VECTOR3, TYPE_COLOR, TYPE_RID]


func _count() -> int:
	return rng.randi_range(0, 6)


func _packed_count() -> int:
	return rng.randi_range(0, 20) if rng.randi_range(0, 4) == 0 else rng.randi_range(0, 6)


func _rand_int() -> int:
	var r := rng.randi_range(0, 99)
	if r < 30:
		return rng.randi_range(-10, 10)
	if r < 55:
		_scratch.encode_u32(0, rng.randi())
		return _scratch.decode_s32(0)
	if r < 80:
		_scratch.encode_u32(0, rng.randi())
		_scratch.encode_u32(4, rng.randi())
		return _scratch.decode_s64(0)
	match rng.randi_range(0, 3):
		0:
			return INT32_MAX + rng.randi_range(-2, 2)
		1:
			return INT32_MIN + rng.randi_range(-2, 2)
		2:
			return INT64_MAX - rng.randi_range(0, 2)
	return INT64_MIN + rng.randi_range(0, 2)


func _rand_i32() -> int:
	if rng.randi_range(0, 2) == 0:
		_scratch.encode_u32(0, rng.randi())
		return _scratch.decode_s32(0)
	return rng.randi_range(-1000, 1000)


const SPECIAL_FLOATS := [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.15625, 1e300, 1e-300, 3.4e38, 16777217.0]


func _rand_float(allow_nan: bool = true) -> float:
	var r := rng.randi_range(0, 99)
	var f: float
	if r < 25:
		f = _f64bits(rng.randi(), rng.randi())
	elif r < 50:
		f = _f32bits(rng.randi())
	elif r < 70:
		f = rng.randf_range(-1000.0, 1000.0)
	elif r < 85:
		f = float(rng.randi_range(-100, 100)) / 4.0
	elif r < 95:
		f = SPECIAL_FLOATS[rng.randi_range(0, SPECIAL_FLOATS.size() - 1)]
	else:
		f = [INF, -INF, NAN, _f64bits(0, rng.randi_range(1, 1000)), _f32bits(rng.randi_range(1, 1000))][
				rng.randi_range(0, 4)]
	if is_nan(f) and (not allow_nan or r < 50):
		return _rand_float(allow_nan)  # random bit patterns: only the plain NaN, never payloads
	return f


func _rand_real() -> float:
	# A component of a real_t math type (float32 in this build): rounding happens on assignment.
	var r := rng.randi_range(0, 9)
	if r < 4:
		var f := _f32bits(rng.randi())
		return 0.0 if is_nan(f) else f
	if r < 7:
		return rng.randf_range(-100.0, 100.0)
	if r < 9:
		return float(rng.randi_range(-20, 20)) / 2.0
	return [0.0, -0.0, INF, -INF, 1e-40][rng.randi_range(0, 4)]


func _rand_char() -> String:
	var r := rng.randi_range(0, 99)
	var cp: int
	if r < 45:
		cp = rng.randi_range(0x20, 0x7E)
	elif r < 50:
		cp = [1, 7, 8, 9, 10, 11, 12, 13, 27, 31, 127][rng.randi_range(0, 10)]
	elif r < 60:
		cp = rng.randi_range(0x80, 0xFF)
	elif r < 80:
		cp = rng.randi_range(0x100, 0xFFFD)
		if (cp >= 0xD800 and cp <= 0xDFFF) or cp == 0xFEFF:
			cp = 0x4E2D
	else:
		cp = rng.randi_range(0x10000, 0x10FFFF)
	return String.chr(cp)


func _rand_string() -> String:
	var n := rng.randi_range(0, 12)
	if rng.randi_range(0, 9) == 0:
		n = rng.randi_range(13, 80)
	var parts := PackedStringArray()
	for _i in n:
		parts.append(_rand_char())
	return "".join(parts)


const NAME_CHARS := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
const NAME_EXTRA := ["é", "ü", "日", "本", "😀", "Ω"]


func _rand_name() -> String:
	if rng.randi_range(0, 9) == 0:
		return ["..", "."][rng.randi_range(0, 1)]
	var n := rng.randi_range(1, 9)
	var s := ""
	for _i in n:
		if rng.randi_range(0, 9) == 0:
			s += NAME_EXTRA[rng.randi_range(0, NAME_EXTRA.size() - 1)]
		else:
			var k := rng.randi_range(0, NAME_CHARS.length() - 1)
			s += NAME_CHARS.substr(k, 1)
	return s


func _rand_nodepath() -> NodePath:
	var names := PackedStringArray()
	for _i in rng.randi_range(0, 3):
		names.append(_rand_name())
	var subs := PackedStringArray()
	var sub_count := rng.randi_range(1, 2) if rng.randi_range(0, 2) == 0 else 0
	for _i in sub_count:
		subs.append(_rand_name().replace(".", "p"))
	var s := "/" if rng.randi_range(0, 2) == 0 else ""
	s += "/".join(names)
	if not subs.is_empty():
		s += ":" + ":".join(subs)
	return NodePath(s)


func _rand_v2() -> Vector2:
	return Vector2(_rand_real(), _rand_real())


func _rand_v3() -> Vector3:
	return Vector3(_rand_real(), _rand_real(), _rand_real())


func _rand_v4() -> Vector4:
	return Vector4(_rand_real(), _rand_real(), _rand_real(), _rand_real())


func _rand_color() -> Color:
	if rng.randi_range(0, 3) == 0:
		return Color(_rand_real(), _rand_real(), _rand_real(), _rand_real())
	return Color(rng.randf(), rng.randf(), rng.randf(), rng.randf())


func _rand_resource(depth: int) -> Resource:
	var r: Resource
	match rng.randi_range(0, 6):
		0:
			r = Resource.new()
		1:
			var g := Gradient.new()
			var n := rng.randi_range(1, 4)
			var offs := PackedFloat32Array()
			var cols := PackedColorArray()
			for _i in n:
				offs.append(rng.randf())
				cols.append(_rand_color())
			g.offsets = offs
			g.colors = cols
			r = g
		2:
			var js := JSON.new()
			js.data = _rand_value(depth + 1) if depth < MAX_DEPTH else _rand_leaf()
			r = js
		3:
			var pm := PhysicsMaterial.new()
			pm.friction = rng.randf_range(0, 2)
			pm.rough = rng.randi_range(0, 1) == 1
			r = pm
		4:
			var bs := BoxShape3D.new()
			bs.size = Vector3(rng.randf_range(0, 10), rng.randf_range(0, 10), rng.randf_range(0, 10))
			r = bs
		5:
			var key := InputEventKey.new()
			key.keycode = rng.randi_range(32, 126)
			key.pressed = rng.randi_range(0, 1) == 1
			r = key
		_:
			var c2 := Curve2D.new()
			for _i in rng.randi_range(0, 3):
				c2.add_point(_rand_v2())
			r = c2
	if rng.randi_range(0, 1) == 0:
		r.resource_name = _rand_string()
	r.resource_local_to_scene = rng.randi_range(0, 4) == 0
	return r


func _rand_object(depth: int) -> Object:
	match rng.randi_range(0, 3):
		0:
			return RefCounted.new()
		1:
			var spb := StreamPeerBuffer.new()
			spb.data_array = _rand_bytes()
			return spb
	return _rand_resource(depth)


func _rand_bytes() -> PackedByteArray:
	var b := PackedByteArray()
	for _i in _packed_count():
		b.append(rng.randi_range(0, 255))
	return b


func _rand_leaf() -> Variant:
	return _rand_of_type(LEAF_TYPES[rng.randi_range(0, LEAF_TYPES.size() - 1)], MAX_DEPTH)


func _rand_of_type(t: int, depth: int) -> Variant:
	match t:
		TYPE_NIL:
			return null
		TYPE_BOOL:
			return rng.randi_range(0, 1) == 1
		TYPE_INT:
			return _rand_int()
		TYPE_FLOAT:
			return _rand_float()
		TYPE_STRING:
			return _rand_string()
		TYPE_VECTOR2:
			return _rand_v2()
		TYPE_VECTOR2I:
			return Vector2i(_rand_i32(), _rand_i32())
		TYPE_RECT2:
			return Rect2(_rand_v2(), _rand_v2())
		TYPE_RECT2I:
			return Rect2i(_rand_i32(), _rand_i32(), _rand_i32(), _rand_i32())
		TYPE_VECTOR3:
			return _rand_v3()
		TYPE_VECTOR3I:
			return Vector3i(_rand_i32(), _rand_i32(), _rand_i32())
		TYPE_TRANSFORM2D:
			return Transform2D(_rand_v2(), _rand_v2(), _rand_v2())
		TYPE_VECTOR4:
			return _rand_v4()
		TYPE_VECTOR4I:
			return Vector4i(_rand_i32(), _rand_i32(), _rand_i32(), _rand_i32())
		TYPE_PLANE:
			return Plane(_rand_real(), _rand_real(), _rand_real(), _rand_real())
		TYPE_QUATERNION:
			return Quaternion(_rand_real(), _rand_real(), _rand_real(), _rand_real())
		TYPE_AABB:
			return AABB(_rand_v3(), _rand_v3())
		TYPE_BASIS:
			return Basis(_rand_v3(), _rand_v3(), _rand_v3())
		TYPE_TRANSFORM3D:
			return Transform3D(Basis(_rand_v3(), _rand_v3(), _rand_v3()), _rand_v3())
		TYPE_PROJECTION:
			return Projection(_rand_v4(), _rand_v4(), _rand_v4(), _rand_v4())
		TYPE_COLOR:
			return _rand_color()
		TYPE_STRING_NAME:
			return StringName(_rand_string())
		TYPE_NODE_PATH:
			return _rand_nodepath()
		TYPE_RID:
			_scratch.encode_u32(0, rng.randi())
			_scratch.encode_u32(4, rng.randi() if rng.randi_range(0, 1) == 0 else 0)
			return rid_from_int64(_scratch.decode_s64(0))
		TYPE_OBJECT:
			return _rand_object(depth)
		TYPE_CALLABLE:
			return Callable(self, "quit") if rng.randi_range(0, 1) == 0 else Callable()
		TYPE_SIGNAL:
			if rng.randi_range(0, 2) == 0:
				return Signal()
			if rng.randi_range(0, 1) == 0:
				return Signal(self, ["process_frame", "physics_frame", "tree_changed"][rng.randi_range(0, 2)])
			var r := Resource.new()
			_keep.append(r)
			return Signal(r, "changed")
		TYPE_DICTIONARY:
			return _rand_dict(depth)
		TYPE_ARRAY:
			return _rand_array(depth)
		TYPE_PACKED_BYTE_ARRAY:
			return _rand_bytes()
		TYPE_PACKED_INT32_ARRAY:
			var a := PackedInt32Array()
			for _i in _packed_count():
				a.append(_rand_i32())
			return a
		TYPE_PACKED_INT64_ARRAY:
			var a := PackedInt64Array()
			for _i in _packed_count():
				a.append(_rand_int())
			return a
		TYPE_PACKED_FLOAT32_ARRAY:
			var a := PackedFloat32Array()
			for _i in _packed_count():
				a.append(_rand_real())
			return a
		TYPE_PACKED_FLOAT64_ARRAY:
			var a := PackedFloat64Array()
			for _i in _packed_count():
				a.append(_rand_float())
			return a
		TYPE_PACKED_STRING_ARRAY:
			var a := PackedStringArray()
			for _i in _packed_count():
				a.append(_rand_string())
			return a
		TYPE_PACKED_VECTOR2_ARRAY:
			var a := PackedVector2Array()
			for _i in _packed_count():
				a.append(_rand_v2())
			return a
		TYPE_PACKED_VECTOR3_ARRAY:
			var a := PackedVector3Array()
			for _i in _packed_count():
				a.append(_rand_v3())
			return a
		TYPE_PACKED_COLOR_ARRAY:
			var a := PackedColorArray()
			for _i in _packed_count():
				a.append(_rand_color())
			return a
		TYPE_PACKED_VECTOR4_ARRAY:
			var a := PackedVector4Array()
			for _i in _packed_count():
				a.append(_rand_v4())
			return a
	printerr("_rand_of_type: unhandled %d" % t)
	return null


func _rand_key(depth: int) -> Variant:
	# Dictionary keys: no NaN (never equal to itself), no objects, no packed arrays.
	var r := rng.randi_range(0, 15)
	match r:
		0:
			return null
		1:
			return rng.randi_range(0, 1) == 1
		2, 3:
			return _rand_int()
		4:
			return _rand_float(false)
		5, 6:
			return _rand_string()
		7:
			return StringName(_rand_string())
		8:
			return _rand_v2()
		9:
			return Vector2i(_rand_i32(), _rand_i32())
		10:
			var math := [TYPE_RECT2, TYPE_RECT2I, TYPE_VECTOR3, TYPE_VECTOR3I, TYPE_TRANSFORM2D, TYPE_VECTOR4,
					TYPE_VECTOR4I, TYPE_PLANE, TYPE_QUATERNION, TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM3D,
					TYPE_PROJECTION, TYPE_COLOR]
			return _rand_of_type(math[rng.randi_range(0, math.size() - 1)], depth)
		11:
			return _rand_nodepath()
		12:
			return _rand_of_type(TYPE_RID, depth)
		13:
			if depth < MAX_DEPTH:
				var a := []
				for _i in rng.randi_range(0, 3):
					a.append(_rand_key(depth + 1))
				return a
		14:
			if depth < MAX_DEPTH:
				var d := {}
				for _i in rng.randi_range(0, 3):
					d[_rand_key(depth + 1)] = _rand_key(depth + 1)
				return d
	return _rand_string()


func _rand_typed_key(t: int, depth: int) -> Variant:
	if t == TYPE_FLOAT:
		return _rand_float(false)
	return _rand_of_type(t, depth)


func _rand_array(depth: int) -> Array:
	if depth >= MAX_DEPTH:
		return []
	var r := rng.randi_range(0, 9)
	var items := []
	if r < 6:
		for _i in _count():
			items.append(_rand_value(depth + 1))
		return items
	if r < 9:
		var t: int = ARRAY_ELEMENT_TYPES[rng.randi_range(0, ARRAY_ELEMENT_TYPES.size() - 1)]
		for _i in _count():
			items.append(_rand_of_type(t, depth + 1))
		return Array(items, t, &"", null)
	var cls: StringName = [&"Resource", &"RefCounted", &"Object"][rng.randi_range(0, 2)]
	for _i in _count():
		if rng.randi_range(0, 5) == 0:
			items.append(null)
		elif cls == &"Resource":
			items.append(_rand_resource(depth + 1))
		else:
			items.append(_rand_object(depth + 1))
	return Array(items, TYPE_OBJECT, cls, null)


func _rand_dict(depth: int) -> Dictionary:
	if depth >= MAX_DEPTH:
		return {}
	var d := {}
	var r := rng.randi_range(0, 9)
	if r < 6:
		for _i in _count():
			d[_rand_key(depth + 1)] = _rand_value(depth + 1)
		return d
	# typed: builtin or class key and/or value types
	var kt := TYPE_NIL
	var kc := &""
	var vt := TYPE_NIL
	var vc := &""
	var shape := rng.randi_range(0, 3)  # 0 both, 1 key only, 2 value only, 3 class value
	if shape != 2:
		kt = KEY_TYPES[rng.randi_range(0, KEY_TYPES.size() - 1)]
	if shape == 0 or shape == 2:
		vt = ARRAY_ELEMENT_TYPES[rng.randi_range(0, ARRAY_ELEMENT_TYPES.size() - 1)]
	if shape == 3:
		vt = TYPE_OBJECT
		vc = [&"Resource", &"RefCounted"][rng.randi_range(0, 1)]
	for _i in _count():
		var k: Variant = _rand_typed_key(kt, depth + 1) if kt != TYPE_NIL else _rand_key(depth + 1)
		var v: Variant
		if vt == TYPE_NIL:
			v = _rand_value(depth + 1)
		elif vt == TYPE_OBJECT:
			v = _rand_resource(depth + 1) if vc == &"Resource" else _rand_object(depth + 1)
		else:
			v = _rand_of_type(vt, depth + 1)
		d[k] = v
	return Dictionary(d, kt, kc, null, vt, vc, null)


func _rand_value(depth: int) -> Variant:
	var nest := depth < MAX_DEPTH
	var r := rng.randi_range(0, 49)
	if r >= 39:
		if not nest:
			return _rand_leaf()
		return _rand_array(depth) if r < 45 else _rand_dict(depth)
	if not nest and (r == TYPE_ARRAY or r == TYPE_DICTIONARY):
		return _rand_leaf()
	return _rand_of_type(r, depth)


# ---------------------------------------------------------------- decode

func _decode(in_path: String, out_path: String) -> int:
	var fin := _open_read(in_path)
	if fin == null:
		return 1
	var f := _open_write(out_path)
	if f == null:
		return 1
	while not fin.eof_reached():
		var line := fin.get_line().strip_edges()
		if line.is_empty():
			continue
		var cols := line.split("\t")
		var hex := cols[0]
		var allow := cols.size() > 1 and cols[1].strip_edges() == "1"
		var b := PackedByteArray()
		if hex.length() % 2 == 0:
			b = hex.hex_decode()
		var n := 0
		if b.size() > 0:
			n = b.decode_var_size(0, allow)
		if n == 0:
			f.store_line('{"ok": false}')
			continue
		var v: Variant = b.decode_var(0, allow)
		f.store_line('{"ok": true, "size": %d, "value": %s, "bytes": "%s", "bytes_objects": "%s"}' % [
				n, _json(describe(v)), var_to_bytes(v).hex_encode(),
				var_to_bytes_with_objects(v).hex_encode()])
	f.close()
	return 0


func _text(in_path: String, out_path: String) -> int:
	var fin := _open_read(in_path)
	if fin == null:
		return 1
	var f := _open_write(out_path)
	if f == null:
		return 1
	while fin.get_position() < fin.get_length():
		var n := fin.get_32()
		var text := fin.get_buffer(n).get_string_from_utf8()
		var v: Variant = str_to_var(text)
		f.store_line('{"bytes": "%s", "text": %s}' % [
				var_to_bytes_with_objects(v).hex_encode(), _jstr(var_to_str(v))])
	f.close()
	return 0


func _json_native(in_path: String, out_path: String) -> int:
	var fin := _open_read(in_path)
	if fin == null:
		return 1
	var f := _open_write(out_path)
	if f == null:
		return 1
	while fin.get_position() < fin.get_length():
		var v: Variant = bytes_to_var_with_objects(fin.get_buffer(fin.get_32()))
		var ours := fin.get_buffer(fin.get_32()).get_string_from_utf8()
		var plain := JSON.stringify(JSON.from_native(v))
		var full := JSON.stringify(JSON.from_native(v, true))
		var read_ours: Variant = JSON.to_native(JSON.parse_string(ours))
		var read_own: Variant = JSON.to_native(JSON.parse_string(plain))
		f.store_line('{"plain": %s, "full": %s, "ours": "%s", "own": "%s"}' % [
				_jstr(plain), _jstr(full), var_to_bytes_with_objects(read_ours).hex_encode(),
				var_to_bytes_with_objects(read_own).hex_encode()])
	f.close()
	return 0


# ---------------------------------------------------------------- bench

func _bench(dir_path: String, iterations: int, out_path: String) -> int:
	if not DirAccess.dir_exists_absolute(dir_path):
		printerr("no such directory: %s" % dir_path)
		return 1
	var names := DirAccess.get_files_at(dir_path)
	var files := []
	for name in names:
		if name.ends_with(".bin"):
			files.append(name)
	files.sort()
	iterations = maxi(iterations, 1)
	var f := _open_write(out_path)
	if f == null:
		return 1
	for name in files:
		var data := FileAccess.get_file_as_bytes(dir_path.path_join(name))
		var v: Variant = bytes_to_var(data)
		var same := var_to_bytes(v) == data
		var t0 := Time.get_ticks_usec()
		for _i in iterations:
			var _enc := var_to_bytes(v)
		var t1 := Time.get_ticks_usec()
		for _i in iterations:
			var _dec: Variant = bytes_to_var(data)
		var t2 := Time.get_ticks_usec()
		f.store_line(JSON.stringify({
			"name": name.get_basename(),
			"encode_us": float(t1 - t0) / iterations,
			"decode_us": float(t2 - t1) / iterations,
			"iterations": iterations,
			"size": data.size(),
			"same_bytes": same,
		}, "", false))
	f.close()
	return 0


# ---------------------------------------------------------------- net
#
# One session of the live network test (the Python side is tests/support/net_session.py), the same
# whichever side listens:
#   1. COUNT times: send a random value v, then var_to_bytes(v) as bytes; read the echo e;
#      send var_to_bytes(e).
#   2. Read a count n; n times, read a value and send it back.
#   3. Send "bye".

const NET_TIMEOUT_MS := 30000
const NET_MAX_VALUE := 16000  # keeps two values well inside PacketPeerStream's 65,531 bytes

var _net_kind := ""
var _tcp: StreamPeerTCP
var _packets: PacketPeer  # PacketPeerStream, PacketPeerUDP or WebSocketPeer
var _ws: WebSocketPeer


func _net_client(kind: String, host: String, port: int, seed_value: int, count: int) -> int:
	rng.seed = seed_value
	_net_kind = kind
	var t0 := Time.get_ticks_msec()
	if kind == "stream" or kind == "pps":
		_tcp = StreamPeerTCP.new()
		if _tcp.connect_to_host(host, port) != OK:
			printerr("connect_to_host failed")
			return 1
		while true:
			_tcp.poll()
			var status := _tcp.get_status()
			if status == StreamPeerTCP.STATUS_CONNECTED:
				break
			if status == StreamPeerTCP.STATUS_ERROR or Time.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
				printerr("could not connect to %s:%d" % [host, port])
				return 1
			OS.delay_msec(1)
		_tcp.set_no_delay(true)
		if kind == "pps":
			var pps := PacketPeerStream.new()
			pps.stream_peer = _tcp
			_packets = pps
	elif kind == "udp":
		var udp := PacketPeerUDP.new()
		if udp.connect_to_host(host, port) != OK:
			printerr("PacketPeerUDP.connect_to_host failed")
			return 1
		_packets = udp
	elif kind == "ws":
		_ws = WebSocketPeer.new()
		if _ws.connect_to_url("ws://%s:%d" % [host, port]) != OK:
			printerr("connect_to_url failed")
			return 1
		while _ws.get_ready_state() != WebSocketPeer.STATE_OPEN:
			_ws.poll()
			if _ws.get_ready_state() == WebSocketPeer.STATE_CLOSED or Time.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
				printerr("WebSocket did not open")
				return 1
			OS.delay_msec(1)
		_packets = _ws
	else:
		printerr("unknown client kind %s" % kind)
		return 2
	var code := _net_session(count)
	if _ws != null:
		_ws.close()
		while _ws.get_ready_state() != WebSocketPeer.STATE_CLOSED and Time.get_ticks_msec() - t0 < NET_TIMEOUT_MS:
			_ws.poll()
			OS.delay_msec(1)
	elif _tcp != null:
		_tcp.disconnect_from_host()
	return code


func _net_server(port_path: String, clients: int, seed_value: int, count: int) -> int:
	rng.seed = seed_value
	var server := TCPServer.new()
	if server.listen(0, "127.0.0.1") != OK:
		printerr("TCPServer.listen failed")
		return 1
	var f := _open_write(port_path)
	if f == null:
		return 1
	f.store_line(str(server.get_local_port()))
	f.close()
	_net_kind = "stream"
	for c in clients:
		var t0 := Time.get_ticks_msec()
		while not server.is_connection_available():
			if Time.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
				printerr("no client %d came" % c)
				return 1
			OS.delay_msec(1)
		_tcp = server.take_connection()
		_tcp.set_no_delay(true)
		var code := _net_session(count)
		_tcp.disconnect_from_host()
		if code != 0:
			return code
	server.stop()
	return 0


func _net_send(v: Variant) -> bool:
	var err := OK
	if _net_kind == "stream":
		_tcp.put_var(v)  # returns nothing; a lost connection shows in the status
		if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			err = ERR_CONNECTION_ERROR
	else:
		err = _packets.put_var(v)
		if _ws != null:
			_ws.poll()
	if err != OK:
		printerr("put_var failed: %s" % error_string(err))
		return false
	return true


func _net_recv() -> Array:
	# [true, value], or [false, null] after a timeout or a lost connection.
	if _net_kind == "stream":
		if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			printerr("connection lost")
			return [false, null]
		return [true, _tcp.get_var()]  # blocks until the whole frame is in
	var t0 := Time.get_ticks_msec()
	while _packets.get_available_packet_count() == 0:
		if _ws != null:
			_ws.poll()
		elif _tcp != null:
			_tcp.poll()
		if Time.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
			printerr("no packet within %d ms" % NET_TIMEOUT_MS)
			return [false, null]
		OS.delay_usec(50)
	return [true, _packets.get_var()]


func _net_session(count: int) -> int:
	var sent := 0
	while sent < count:
		var v: Variant = _rand_value(0)
		var b := var_to_bytes(v)
		if b != var_to_bytes_with_objects(v) or b.size() > NET_MAX_VALUE:
			continue  # objects become new instances on the way back; see the golden tests
		if not _net_send(v) or not _net_send(b):
			return 1
		var r := _net_recv()
		if not r[0] or not _net_send(var_to_bytes(r[1])):
			return 1
		sent += 1
	var head := _net_recv()
	if not head[0]:
		return 1
	for i in int(head[1]):
		var r := _net_recv()
		if not r[0] or not _net_send(r[1]):
			return 1
	return 0 if _net_send("bye") else 1


# ---------------------------------------------------------------- limits

func _limits(out_path: String) -> int:
	# What a default PacketPeerStream sends and delivers, and PacketPeer's encode limit.
	var facts := {}
	for n in [65528, 65531, 65532, 65533]:
		var payload := PackedByteArray()
		payload.resize(n)
		var sender := PacketPeerStream.new()
		sender.stream_peer = StreamPeerBuffer.new()
		facts["pps_send_%d" % n] = sender.put_packet(payload)
		var wide := PacketPeerStream.new()  # sends anything, to see what a default peer receives
		wide.output_buffer_max_size = 1 << 20
		var wire := StreamPeerBuffer.new()
		wide.stream_peer = wire
		wide.put_packet(payload)
		wire.seek(0)
		var receiver := PacketPeerStream.new()
		receiver.stream_peer = wire
		facts["pps_receive_%d" % n] = receiver.get_available_packet_count()
	var udp := PacketPeerUDP.new()
	facts["encode_buffer_max_size"] = udp.encode_buffer_max_size
	for n in [8388608, 8388612]:
		var b := PackedByteArray()
		b.resize(n - 8)  # a PackedByteArray's encoding: 8 bytes of header and size, then the bytes
		facts["put_var_%d" % n] = udp.put_var(b)
	var f := _open_write(out_path)
	if f == null:
		return 1
	f.store_line(JSON.stringify(facts))
	f.close()
	return 0


# ---------------------------------------------------------------- save files
#
# A file is named MODE_CONTENT.sav. MODE picks how it is opened (_open_save); CONTENT is
# "values" (the COUNT values listed in manifest.txt), "empty" or "exact" (one record whose
# plaintext is exactly 4096 bytes: a GCPF file whose last block is empty).

const SAVE_MODES := ["plain", "plain_be", "key", "key_iv", "pass", "pass_utf8",
		"fastlz", "deflate", "zstd", "gzip"]


func _open_save(path: String, mode: String, write: bool) -> FileAccess:
	var how := FileAccess.WRITE if write else FileAccess.READ
	var key := PackedByteArray()
	var iv := PackedByteArray()
	for i in 32:
		key.append(i)
	for i in 16:
		iv.append(0xA0 + i)
	var f: FileAccess = null
	match mode:
		"plain", "plain_be":
			f = FileAccess.open(path, how)
		"key":
			f = FileAccess.open_encrypted(path, how, key)
		"key_iv":
			f = FileAccess.open_encrypted(path, how, key, iv)
		"pass":
			f = FileAccess.open_encrypted_with_pass(path, how, "secret")
		"pass_utf8":
			f = FileAccess.open_encrypted_with_pass(path, how, "pässwörd")
		"fastlz":
			f = FileAccess.open_compressed(path, how, FileAccess.COMPRESSION_FASTLZ)
		"deflate":
			f = FileAccess.open_compressed(path, how, FileAccess.COMPRESSION_DEFLATE)
		"zstd":
			f = FileAccess.open_compressed(path, how, FileAccess.COMPRESSION_ZSTD)
		"gzip":
			f = FileAccess.open_compressed(path, how, FileAccess.COMPRESSION_GZIP)
	if f != null and mode == "plain_be":
		f.big_endian = true
	return f


func _savefiles(dir: String, seed_value: int, count: int) -> int:
	rng.seed = seed_value
	var values := []
	var manifest := _open_write(dir.path_join("manifest.txt"))
	while values.size() < count:
		var v: Variant = _rand_value(0)
		if var_to_bytes(v) == var_to_bytes_with_objects(v):
			values.append(v)
			manifest.store_line(var_to_bytes(v).hex_encode())
	manifest.close()
	var exact := PackedByteArray()
	exact.resize(4096 - 12)
	for mode in SAVE_MODES:
		for content in ["values", "empty", "exact"]:
			var f := _open_save(dir.path_join("%s_%s.sav" % [mode, content]), mode, true)
			if f == null:
				printerr("cannot write %s_%s: %s" % [mode, content, error_string(FileAccess.get_open_error())])
				return 1
			if content == "values":
				for v in values:
					f.store_var(v)
			elif content == "exact":
				f.store_var(exact)
			f.close()
	return 0


func _readsaves(dir: String, out_path: String) -> int:
	var out := _open_write(out_path)
	if out == null:
		return 1
	var names := DirAccess.get_files_at(dir)
	names.sort()
	for name in names:
		if not name.ends_with(".sav"):
			continue
		var mode := name.get_basename().rsplit("_", true, 1)[0]
		var f := _open_save(dir.path_join(name), mode, false)
		if f == null:
			out.store_line(JSON.stringify({"name": name, "ok": false,
					"error": error_string(FileAccess.get_open_error())}))
			continue
		var records := []
		while f.get_position() < f.get_length():
			records.append(var_to_bytes(f.get_var()).hex_encode())
		f.close()
		out.store_line(JSON.stringify({"name": name, "ok": true, "records": records}))
	out.close()
	return 0
