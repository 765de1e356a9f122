# Godot 3 oracle for gdvariant: reference values and decode verdicts from a real Godot 3 engine.
# Written for GDScript 3; runs unchanged on Godot 3.2.3 and 3.6.2.
#
# Run (always under a timeout: a script error leaves Godot 3 waiting forever):
#   godot3-server --no-window -s godot3_oracle.gd MODE ARGS...
#   generate SEED COUNT OUT   JSON Lines: a header {"engine", "seed", "count"}, then one line per value:
#                             {"i", "name", "text" (var2str), "bytes" (var2bytes), "bytes_objects"
#                             (var2bytes(v, true)), "value" (describe)}
#   decode IN OUT             IN: lines "HEX<TAB>ALLOW" (ALLOW 0 or 1); OUT: one JSON verdict per line
#
# describe(v) writes the same JSON tree as tests/live/codec/godot4_oracle.gd, with the Godot 4 name of
# each type (Quat -> "Quaternion", Transform -> "Transform3D", PoolIntArray -> "PackedInt32Array",
# PoolRealArray -> "PackedFloat32Array", ...): floats are 16 hex digits of their little-endian
# double bits, strings UTF-8 hex, ints decimal strings (PoolIntArray items plain JSON numbers).
# An RID is always ["RID", "0"]: Godot 3 writes no id for it. A null or freed Object is ["nil"].
#
# Decode verdicts. Godot 3 has no call that reports a decode error to a script: bytes2var stops
# the script, and StreamPeer.get_var prints the error and returns null. This script feeds the
# bytes to StreamPeerBuffer.get_var(ALLOW) behind a u32 length prefix. Rule, checked on 3.2.3
# and 3.6.2: on error get_var returns a Variant of type NIL, whereas a decoded null Object (an
# object id of 0, or the full form with an empty class name) comes back typed TYPE_OBJECT. So
#   ok = typeof(result) != TYPE_NIL, or (the input has >= 4 bytes and its type byte is 0).
# (Any header whose low byte is 0 is a valid NIL: bits 8-31 are ignored by the decoder.)
# Output per line: {"ok": bool, "type_byte": first byte or null, "variant_type": typeof(result),
# "size": the shortest prefix of the input that still decodes (when ok; see _shortest_prefix),
# "value": describe(result) or null, "bytes": var2bytes(result), "bytes_objects":
# var2bytes(result, true)}; the last two (the engine re-encoding what it read) are left out when
# the verdict is false, and when the value holds a Pool array as a Dictionary key (Godot 3 can
# crash encoding those). Lines whose HEX is not hex give {"ok": false, "bad_hex": true}.
# Beware: Godot 3.6.2 itself crashes (signal 11) decoding, with ALLOW=1, a full object whose
# "script" property holds a full GDScript object (the bytes_objects of "obj_with_script"); 3.2.3
# decodes it. Feed such inputs one per run, or not at all, on 3.6.
#
# Other engine facts met while writing this (3.2.3 and 3.6.2 unless noted):
# - the literal -0.0 folds to +0.0 in GDScript 3, so -0.0 is built from its bits;
# - var2str writes nothing for an RID, so "text" is "" for a top-level RID;
# - 3.6.2's var2str gives up below about 100 nested containers ("Max recursion reached");
# - 3.6.2's String.to_utf8() (and var2bytes) writes a lone surrogate as a space, while its decoder
#   keeps U+D800..U+DFFF; 3.2.3 writes it as 3-byte UTF-8. describe() shows what to_utf8() gives;
# - NodePath padding bytes are not initialised by the encoder: they differ between runs.
# - a freed Object used as a Dictionary key is written as a NIL key, its value kept.
extends SceneTree

const INT32_MAX = 2147483647
const INT32_MIN = -2147483648
const INT64_MAX = 9223372036854775807
const INT64_MIN = -9223372036854775807 - 1
const MAX_DEPTH = 5

var rng = RandomNumberGenerator.new()
var _bits = StreamPeerBuffer.new()  # scratch for float/int bit conversions
var _keep = []  # objects that must stay alive while their ids are written
var _to_free = []  # non-Reference objects, freed before quitting
var _pool_key_seen = false  # set by describe() when a Dictionary key is a Pool array
var _rid_real = RID()
var _neg0 = 0.0  # -0.0, made from its bits: GDScript 3 folds the literal -0.0 to +0.0


func _init():
	_neg0 = _double_from(0x80000000, 0)
	var args = _user_args()
	var code = 2
	if args.size() == 4 and args[0] == "generate":
		code = _generate(int(args[1]), int(args[2]), args[3])
	elif args.size() == 3 and args[0] == "decode":
		code = _decode(args[1], args[2])
	elif args.size() == 3 and args[0] == "text":
		code = _text(args[1], args[2])
	elif args.size() == 2 and args[0] == "limits":
		code = _limits(args[1])
	elif args.size() == 4 and args[0] == "savefiles":
		code = _savefiles(args[1], int(args[2]), int(args[3]))
	elif args.size() == 3 and args[0] == "readsaves":
		code = _readsaves(args[1], args[2])
	elif args.size() == 6 and args[0] == "client":
		code = _net_client(args[1], args[2], int(args[3]), int(args[4]), int(args[5]))
	else:
		printerr("usage: generate SEED COUNT OUT | decode IN OUT | client KIND HOST PORT SEED COUNT | limits OUT"
				+ " (got %s)" % str(args))
	for o in _to_free:
		if is_instance_valid(o):
			o.free()
	_keep.clear()
	quit(code)


func _user_args():
	# OS.get_cmdline_args() also holds the engine's own options: keep what follows the script path.
	var all = OS.get_cmdline_args()
	var out = []
	var seen_script = false
	for a in all:
		if seen_script:
			out.append(a)
		elif a.ends_with(".gd"):
			seen_script = true
	return out


# ---------------------------------------------------------------- JSON

func _jstr(s):
	# Escape quotes, backslashes, every control character, DEL, U+0085, U+2028 and U+2029 (the last
	# three are line breaks for Python's str.splitlines).
	var parts = PoolStringArray()
	var start = 0
	var n = s.length()
	for i in n:
		var c = s.ord_at(i)
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
		parts.append(s.substr(start, n - start))
	return "\"" + parts.join("") + "\""


func _json(root):
	# Writes a describe() tree (Arrays of Strings, ints, bools and nulls) without recursion.
	# A PoolStringArray on the work stack is a punctuation token written as is.
	var out = PoolStringArray()
	var work = [root]
	while not work.empty():
		var x = work.pop_back()
		match typeof(x):
			TYPE_STRING_ARRAY:
				out.append(x[0])
			TYPE_STRING:
				out.append(_jstr(x))
			TYPE_INT:
				out.append(str(x))
			TYPE_BOOL:
				out.append("true" if x else "false")
			TYPE_NIL:
				out.append("null")
			TYPE_ARRAY:
				work.append(PoolStringArray(["]"]))
				var k = x.size() - 1
				while k >= 0:
					work.append(x[k])
					if k > 0:
						work.append(PoolStringArray([","]))
					k -= 1
				work.append(PoolStringArray(["["]))
			_:
				printerr("_json: unexpected type %d" % typeof(x))
				out.append("null")
	return out.join("")


func _open(path, mode):
	var f = File.new()
	var err = f.open(path, mode)
	if err != OK:
		printerr("cannot open %s (error %d)" % [path, err])
		return null
	return f


# ---------------------------------------------------------------- bits

func _fh(x):
	# The 8 little-endian bytes of a double, as hex.
	_bits.clear()
	_bits.put_double(x)
	return _bits.data_array.hex_encode()


func _fhs(values):
	var out = []
	for x in values:
		out.append(_fh(x))
	return out


func _u8(s):
	return s.to_utf8().hex_encode()


func _double_from(hi, lo):
	_bits.clear()
	_bits.put_u32(lo)
	_bits.put_u32(hi)
	_bits.seek(0)
	return _bits.get_double()


func _float_from(word):
	_bits.clear()
	_bits.put_u32(word)
	_bits.seek(0)
	return _bits.get_float()


func _int64_from(hi, lo):
	_bits.clear()
	_bits.put_u32(lo)
	_bits.put_u32(hi)
	_bits.seek(0)
	return _bits.get_64()


func _int32_from(word):
	_bits.clear()
	_bits.put_u32(word)
	_bits.seek(0)
	return _bits.get_32()


# ---------------------------------------------------------------- describe

func describe(root):
	# Without recursion: each job is [value, target array, index in target].
	var holder = [null]
	var jobs = [[root, holder, 0]]
	while not jobs.empty():
		var job = jobs.pop_back()
		job[1][job[2]] = _describe_one(job[0], jobs)
	return holder[0]


func _is_pool(t):
	return t >= TYPE_RAW_ARRAY and t <= TYPE_COLOR_ARRAY


func _describe_one(v, jobs):
	match typeof(v):
		TYPE_NIL:
			return ["nil"]
		TYPE_BOOL:
			return ["bool", v]
		TYPE_INT:
			return ["int", str(v)]
		TYPE_REAL:
			return ["float", _fh(v)]
		TYPE_STRING:
			return ["String", _u8(v)]
		TYPE_VECTOR2:
			return ["Vector2", _fhs([v.x, v.y])]
		TYPE_RECT2:
			return ["Rect2", _fhs([v.position.x, v.position.y, v.size.x, v.size.y])]
		TYPE_VECTOR3:
			return ["Vector3", _fhs([v.x, v.y, v.z])]
		TYPE_TRANSFORM2D:
			return ["Transform2D", _fhs([v.x.x, v.x.y, v.y.x, v.y.y, v.origin.x, v.origin.y])]
		TYPE_PLANE:
			return ["Plane", _fhs([v.normal.x, v.normal.y, v.normal.z, v.d])]
		TYPE_QUAT:
			return ["Quaternion", _fhs([v.x, v.y, v.z, v.w])]
		TYPE_AABB:
			return ["AABB", _fhs([v.position.x, v.position.y, v.position.z, v.size.x, v.size.y, v.size.z])]
		TYPE_BASIS:
			return ["Basis", _fhs([v.x.x, v.x.y, v.x.z, v.y.x, v.y.y, v.y.z, v.z.x, v.z.y, v.z.z])]
		TYPE_TRANSFORM:
			var b = v.basis
			return ["Transform3D", _fhs([b.x.x, b.x.y, b.x.z, b.y.x, b.y.y, b.y.z, b.z.x, b.z.y, b.z.z,
					v.origin.x, v.origin.y, v.origin.z])]
		TYPE_COLOR:
			return ["Color", _fhs([v.r, v.g, v.b, v.a])]
		TYPE_NODE_PATH:
			var names = []
			for i in v.get_name_count():
				names.append(_u8(v.get_name(i)))
			var subs = []
			for i in v.get_subname_count():
				subs.append(_u8(v.get_subname(i)))
			return ["NodePath", v.is_absolute(), names, subs]
		TYPE_RID:
			return ["RID", "0"]
		TYPE_OBJECT:
			if not is_instance_valid(v):
				return ["nil"]
			var props = []
			for p in v.get_property_list():
				if p["usage"] & PROPERTY_USAGE_STORAGE:
					var pair = [p["name"], null]
					props.append(pair)
					jobs.append([v.get(p["name"]), pair, 1])
			return ["Object", v.get_class(), str(v.get_instance_id()), props]
		TYPE_DICTIONARY:
			var keys = v.keys()
			var values = v.values()
			var pairs = []
			for i in keys.size():
				if _is_pool(typeof(keys[i])):
					_pool_key_seen = true
				var pair = [null, null]
				pairs.append(pair)
				jobs.append([keys[i], pair, 0])
				jobs.append([values[i], pair, 1])
			return ["Dictionary", null, null, pairs]
		TYPE_ARRAY:
			var items = []
			items.resize(v.size())
			for i in v.size():
				jobs.append([v[i], items, i])
			return ["Array", null, items]
		TYPE_RAW_ARRAY:
			return ["PackedByteArray", v.hex_encode()]
		TYPE_INT_ARRAY:
			return ["PackedInt32Array", Array(v)]
		TYPE_REAL_ARRAY:
			return ["PackedFloat32Array", _fhs(Array(v))]
		TYPE_STRING_ARRAY:
			var out = []
			for s in v:
				out.append(_u8(s))
			return ["PackedStringArray", out]
		TYPE_VECTOR2_ARRAY:
			var out = []
			for e in v:
				out.append(_fhs([e.x, e.y]))
			return ["PackedVector2Array", out]
		TYPE_VECTOR3_ARRAY:
			var out = []
			for e in v:
				out.append(_fhs([e.x, e.y, e.z]))
			return ["PackedVector3Array", out]
		TYPE_COLOR_ARRAY:
			var out = []
			for e in v:
				out.append(_fhs([e.r, e.g, e.b, e.a]))
			return ["PackedColorArray", out]
	printerr("describe: unhandled type %d" % typeof(v))
	return ["unknown", typeof(v)]


# ---------------------------------------------------------------- generate

func _generate(seed_value, count, out_path):
	rng.seed = seed_value
	_rid_real = PhysicsServer.shape_create(PhysicsServer.SHAPE_BOX)
	var cases = _traps()
	var total = count
	if cases.size() > total:
		total = cases.size()
	var f = _open(out_path, File.WRITE)
	if f == null:
		return 1
	f.store_line('{"engine": %s, "seed": %d, "count": %d}' % [
			_jstr(Engine.get_version_info().string), seed_value, total])
	var i = 0
	for c in cases:
		_write_value(f, i, c[0], c[1])
		i += 1
	while i < total:
		_write_value(f, i, "random", _rand_value(0))
		i += 1
	f.close()
	PhysicsServer.free_rid(_rid_real)
	return 0


func _write_value(f, i, name, v):
	var line = '{"i": %d, "name": %s, "text": %s, "bytes": "%s", "bytes_objects": "%s", "value": %s}' % [
			i, _jstr(name), _jstr(var2str(v)), var2bytes(v).hex_encode(), var2bytes(v, true).hex_encode(),
			_json(describe(v))]
	f.store_line(line)


func _kept(o):
	_keep.append(o)
	return o


func _named_resource(rname):
	var r = Resource.new()
	r.resource_name = rname
	return _kept(r)


func _deep_arrays(levels, leaf):
	var v = leaf
	for _i in levels:
		v = [v]
	return v


func _deep_mixed(levels):
	var v = "leaf"
	for i in levels:
		if i % 2 == 0:
			v = [i, v]
		else:
			v = {"d%d" % i: v}
	return v


func _ascii(n):
	return "abcdefghij".substr(0, n)


func _trap_objects():
	var t = []
	t.append(["obj_reference", _kept(Reference.new())])
	t.append(["obj_resource_named", _named_resource("hi")])
	t.append(["obj_resource_unicode_name", _named_resource("é日😀")])
	var plain = ClassDB.instance("Object")
	_to_free.append(plain)
	t.append(["obj_plain_object", plain])
	var meta = _named_resource("with meta")
	meta.set_meta("answer", 42)
	meta.set_meta("list", [1, "two", Vector2(3, 4)])
	t.append(["obj_resource_meta", meta])
	var g = Gradient.new()
	g.offsets = PoolRealArray([0.0, 0.25, 1.0])
	g.colors = PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0, 0, 1)])
	g.resource_name = "grad"
	t.append(["obj_gradient", _kept(g)])
	var gt = GradientTexture.new()
	gt.gradient = g
	gt.width = 64
	t.append(["obj_gradient_texture_nested", _kept(gt)])
	var cv = Curve.new()
	cv.add_point(Vector2(0, 0.5))
	cv.add_point(Vector2(1, 1), 0.5, -0.5)
	t.append(["obj_curve", _kept(cv)])
	var sb = StyleBoxFlat.new()
	sb.bg_color = Color(0.1, 0.2, 0.3, 0.4)
	sb.corner_radius_top_left = 7
	sb.border_width_bottom = 3
	t.append(["obj_stylebox_flat", _kept(sb)])
	var pm = PhysicsMaterial.new()
	pm.friction = 0.25
	pm.rough = true
	t.append(["obj_physics_material", _kept(pm)])
	var bs = BoxShape.new()
	bs.extents = Vector3(1, 2, 3)
	t.append(["obj_box_shape", _kept(bs)])
	var c2 = Curve2D.new()
	c2.add_point(Vector2(1, 2))
	c2.add_point(Vector2(3, 4), Vector2(-1, 0), Vector2(1, 0))
	t.append(["obj_curve2d", _kept(c2)])
	var img = Image.new()
	img.create(2, 1, false, Image.FORMAT_RGBA8)
	img.lock()
	img.set_pixel(0, 0, Color(1, 0, 0, 1))
	img.unlock()
	t.append(["obj_image", _kept(img)])
	var spb = StreamPeerBuffer.new()
	spb.data_array = PoolByteArray([1, 2, 3, 4, 5])
	t.append(["obj_stream_peer_buffer", _kept(spb)])
	var key = InputEventKey.new()
	key.scancode = KEY_A
	key.pressed = true
	key.unicode = 0x1F600
	t.append(["obj_input_event_key", _kept(key)])
	var scr = GDScript.new()
	scr.source_code = "extends Reference\nexport var exported = 3\nvar not_exported = 4\n"
	scr.reload()
	var scripted = Reference.new()
	scripted.set_script(scr)
	t.append(["obj_with_script", _kept(scripted)])
	var freed = ClassDB.instance("Object")
	freed.free()
	t.append(["obj_freed", freed])
	t.append(["obj_freed_in_array", [freed, 1]])
	var fk = {}
	fk[freed] = "value of a freed key"
	fk["after"] = 2
	t.append(["obj_freed_as_dict_key", fk])
	t.append(["obj_null_in_array", [null, 1]])
	var shared = _named_resource("shared")
	t.append(["obj_twice_in_array", [shared, shared]])
	t.append(["obj_in_dict_value", {"res": _named_resource("v"), "n": 1}])
	var ok = {}
	ok[_named_resource("as key")] = 1
	t.append(["obj_as_dict_key", ok])
	t.append(["obj_in_nested_array", [[_named_resource("deep")], 2]])
	var holder = _named_resource("holder")
	holder.set_meta("child", _named_resource("child"))
	t.append(["obj_in_object_meta", holder])
	return t


func _traps():
	var t = []
	t.append(["nil", null])
	t.append(["bool_false", false])
	t.append(["bool_true", true])
	for pair in [["int_0", 0], ["int_1", 1], ["int_m1", -1], ["int_127", 127], ["int_128", 128],
			["int_255", 255], ["int_256", 256], ["int_65535", 65535],
			["int_i32_max", INT32_MAX], ["int_i32_max_m1", INT32_MAX - 1], ["int_i32_max_p1", INT32_MAX + 1],
			["int_i32_min", INT32_MIN], ["int_i32_min_p1", INT32_MIN + 1], ["int_i32_min_m1", INT32_MIN - 1],
			["int_u32_max", 4294967295], ["int_2p32", 4294967296], ["int_m2p32", -4294967296],
			["int_i64_max", INT64_MAX], ["int_i64_max_m1", INT64_MAX - 1],
			["int_i64_min", INT64_MIN], ["int_i64_min_p1", INT64_MIN + 1]]:
		t.append(pair)
	# floats: 4 bytes when float32 holds the value exactly, else 8 (NaN always 8)
	t.append(["float_0", 0.0])
	t.append(["float_neg0", _neg0])
	t.append(["float_neg0_literal_is_pos0", -0.0])  # GDScript 3 folds the literal -0.0 to +0.0
	t.append(["float_0_5", 0.5])
	t.append(["float_0_1", 0.1])
	t.append(["float_1", 1.0])
	t.append(["float_m1", -1.0])
	t.append(["float_m2_5", -2.5])
	t.append(["float_third", 1.0 / 3.0])
	t.append(["float_100", 100.0])
	t.append(["float_inf", INF])
	t.append(["float_ninf", -INF])
	t.append(["float_nan", NAN])
	t.append(["float_nan_payload", _double_from(0x7FF80000, 1)])
	t.append(["float_nan_negative", _double_from(0xFFF80000, 0)])
	t.append(["float_1e300", 1e300])
	t.append(["float_m1e300", -1e300])
	t.append(["float_1e_46", 1e-46])
	t.append(["float_1e_45", 1e-45])
	t.append(["float_2p24", 16777216.0])
	t.append(["float_2p24_p1", 16777217.0])
	t.append(["float_3_4e38", 3.4e38])
	t.append(["float_1e39", 1e39])
	t.append(["float_f64_max", _double_from(0x7FEFFFFF, 0xFFFFFFFF)])
	t.append(["float_f64_min_denormal", _double_from(0, 1)])
	t.append(["float_f32_min_denormal", _float_from(1)])
	t.append(["float_f32_max", _float_from(0x7F7FFFFF)])
	t.append(["float_f32_min_normal", _float_from(0x00800000)])
	# strings
	for n in 9:
		t.append(["string_ascii_len%d" % n, _ascii(n)])
	t.append(["string_e_acute", "é"])
	t.append(["string_e_acute_len3", "éa"])
	t.append(["string_cjk", "日本語"])
	t.append(["string_emoji", "😀"])
	t.append(["string_mixed", "a😀é日b"])
	t.append(["string_bom_leading", char(0xFEFF) + "abc"])
	t.append(["string_bom_only", char(0xFEFF)])
	t.append(["string_bom_inner", "a" + char(0xFEFF) + "b"])
	t.append(["string_escapes", "tab\tnl\nquote\"back\\slash"])
	t.append(["string_controls", char(1) + char(0x0B) + char(0x7F) + char(0x1F)])
	t.append(["string_noncharacters", char(0xFFFE) + char(0xFFFF) + char(0x10FFFF)])
	t.append(["string_line_separators", "a" + char(0x85) + "b" + char(0x2028) + "c" + char(0x2029)])
	var long_parts = PoolStringArray()
	for _i in 100:
		long_parts.append("0123456789")
	t.append(["string_long", long_parts.join("")])
	# NodePath (Godot 3 leaves the padding after names and subnames unwritten)
	for pair in [["nodepath_a_b_c", "a/b:c"], ["nodepath_root", "/root"], ["nodepath_empty", ""],
			["nodepath_parent_x", "../x"], ["nodepath_prop_sub", ":prop:sub"], ["nodepath_slash", "/"],
			["nodepath_dot", "."], ["nodepath_abs_props", "/root/Main/Player:position:x"],
			["nodepath_abs_prop_only", "/:a"], ["nodepath_unicode", "é/日本:ü😀"],
			["nodepath_spec_example", "a/bcde:fgh:i"], ["nodepath_pad", "abc/abcd/abcde:ab:abcdefg"],
			["nodepath_len4_names", "abcd/efgh:ijkl"]]:
		t.append([pair[0], NodePath(pair[1])])
	# math types (float32 components)
	t.append(["vector2", Vector2(1.5, -2.25)])
	t.append(["vector2_f32_rounded", Vector2(0.1, _neg0)])
	t.append(["vector2_inf_nan", Vector2(INF, NAN)])
	t.append(["rect2", Rect2(1, 2, 3, 4)])
	t.append(["rect2_negative_size", Rect2(-1, -2, -3, 0.5)])
	t.append(["vector3", Vector3(1, 2, 3)])
	t.append(["vector3_small", Vector3(1e-40, -1e-30, 1e30)])
	t.append(["transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))])
	t.append(["transform2d_identity", Transform2D()])
	t.append(["transform2d_rotated", Transform2D(0.5, Vector2(10, 20))])
	t.append(["plane", Plane(1, 2, 3, 4)])
	t.append(["plane_normalized", Plane(Vector3(0, 1, 0), -2.5)])
	t.append(["quat", Quat(1, 2, 3, 4)])
	t.append(["quat_identity", Quat()])
	t.append(["quat_axis_angle", Quat(Vector3(1, 2, 2).normalized(), 0.75)])
	t.append(["aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))])
	t.append(["basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))])
	t.append(["basis_identity", Basis()])
	t.append(["basis_rotated", Basis(Vector3(1, 1, 0).normalized(), 0.3)])
	t.append(["basis_euler", Basis(Vector3(0.1, 0.2, 0.3))])
	t.append(["transform", Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
			Vector3(10, 11, 12))])
	t.append(["transform_identity", Transform()])
	t.append(["transform_rotated", Transform(Basis(Vector3(0, 0, 1), 1.25), Vector3(-1, 0.5, 3))])
	t.append(["color", Color(0.1, 0.2, 0.3, 0.4)])
	t.append(["color_opaque", Color(1, 0, 0)])
	t.append(["color_hdr", Color(2, -1, 0.5, 0)])
	# RID: Godot 3 writes the header only
	t.append(["rid_default", RID()])
	t.append(["rid_physics_shape", _rid_real])
	t.append(["rid_in_array", [RID(), _rid_real]])
	# objects
	t += _trap_objects()
	# containers
	t.append(["array_empty", []])
	t.append(["dict_empty", {}])
	t.append(["array_mixed", [1, "a", 2.5, null, true, Vector2(1, 2), NodePath("x"), Color(1, 1, 1)]])
	t.append(["dict_mixed", {"a": 1, 2: "b", 3.5: [1], null: {}, Vector3(1, 2, 3): false}])
	var d1 = {}
	d1[1] = "int"
	d1[1.0] = "float"
	d1[true] = "bool"
	d1["1"] = "string"
	t.append(["dict_keys_int_float_bool_string", d1])
	var d2 = {}
	d2[0] = "int0"
	d2[0.0] = "float0"
	d2[false] = "false"
	d2[null] = "nil"
	d2[""] = "empty"
	t.append(["dict_keys_falsy", d2])
	var d3 = {}
	d3[0.0] = "zero"
	d3[_neg0] = "negzero"
	t.append(["dict_keys_zero_negzero", d3])
	var d4 = {}
	d4[Vector2(1, 2)] = "v2"
	d4[Vector2(-0.5, 0.1)] = "v2b"
	d4[Vector3(1, 2, 0)] = "v3"
	t.append(["dict_vector2_keys", d4])
	var d5 = {}
	d5["a"] = 1
	d5[NodePath("a")] = 2
	d5[Color(0, 0, 0)] = 3
	d5[RID()] = 4
	t.append(["dict_string_nodepath_color_rid_keys", d5])
	var d6 = {}
	for k in [3, 1, 2, "c", "a", "b"]:
		d6[k] = k
	t.append(["dict_insertion_order", d6])
	var d7 = {}
	d7[[1, 2]] = "array"
	d7[{"a": 1}] = "dict"
	d7[[]] = "empty array"
	d7[{}] = "empty dict"
	t.append(["dict_container_keys", d7])
	var d8 = {}
	d8[1.5] = "x"
	d8[1e300] = "y"
	d8[INT64_MIN] = "z"
	t.append(["dict_float_int64_keys", d8])
	t.append(["nest_arrays_50", _deep_arrays(50, 1)])
	t.append(["nest_mixed_50", _deep_mixed(50)])
	t.append(["nest_arrays_200", _deep_arrays(200, "leaf")])
	var dn = null
	for i in 100:
		dn = {i: dn}
	t.append(["nest_dicts_100", dn])
	t.append(["array_of_pools", [PoolByteArray([1]), PoolIntArray([2]), PoolStringArray(["s"])]])
	t.append(["dict_of_pools", {"b": PoolByteArray([1, 2, 3]), "v": PoolVector3Array([Vector3(1, 2, 3)])}])
	# pool arrays
	t.append(["pba_empty", PoolByteArray()])
	for n in range(1, 6):
		var b = PoolByteArray()
		for j in n:
			b.append(250 + j)
		t.append(["pba_len%d" % n, b])
	t.append(["pint_empty", PoolIntArray()])
	t.append(["pint", PoolIntArray([INT32_MIN, -1, 0, 1, INT32_MAX])])
	t.append(["preal_empty", PoolRealArray()])
	t.append(["preal", PoolRealArray([0.1, _neg0, INF, -INF, NAN, 1.0, 3.4e38, _float_from(1)])])
	t.append(["pstr_empty", PoolStringArray()])
	t.append(["pstr_one_empty", PoolStringArray([""])])
	t.append(["pstr", PoolStringArray(["", "a", "ab", "abc", "abcd", "é", "😀", "日本語"])])
	t.append(["pv2_empty", PoolVector2Array()])
	t.append(["pv2", PoolVector2Array([Vector2(1, 2), Vector2(-0.5, 0.1)])])
	t.append(["pv3_empty", PoolVector3Array()])
	t.append(["pv3", PoolVector3Array([Vector3(1, 2, 3), Vector3(-1, INF, 0.1)])])
	t.append(["pcolor_empty", PoolColorArray()])
	t.append(["pcolor", PoolColorArray([Color(0.1, 0.2, 0.3, 0.4), Color(1, 1, 1, 1)])])
	return t


# ---------------------------------------------------------------- random values

const LEAF_TYPES = [TYPE_NIL, TYPE_BOOL, TYPE_INT, TYPE_REAL, TYPE_STRING, TYPE_VECTOR2, TYPE_RECT2,
		TYPE_VECTOR3, TYPE_TRANSFORM2D, TYPE_PLANE, TYPE_QUAT, TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM,
		TYPE_COLOR, TYPE_NODE_PATH, TYPE_RID, TYPE_RAW_ARRAY, TYPE_INT_ARRAY, TYPE_REAL_ARRAY,
		TYPE_STRING_ARRAY, TYPE_VECTOR2_ARRAY, TYPE_VECTOR3_ARRAY, TYPE_COLOR_ARRAY]
const KEY_MATH_TYPES = [TYPE_VECTOR2, TYPE_RECT2, TYPE_VECTOR3, TYPE_TRANSFORM2D, TYPE_PLANE, TYPE_QUAT,
		TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM, TYPE_COLOR]
const SPECIAL_FLOATS = [0.0, "-0", 1.0, -1.0, 0.5, 0.1, 1e300, 1e-300, 3.4e38, 16777217.0, 1e-46]
const NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
const NAME_EXTRA = ["é", "ü", "日", "本", "😀", "Ω"]


func _pick(list):
	return list[rng.randi_range(0, list.size() - 1)]


func _small_count():
	return rng.randi_range(0, 6)


func _pool_count():
	if rng.randi_range(0, 4) == 0:
		return rng.randi_range(0, 24)
	return rng.randi_range(0, 6)


func _rand_int():
	var r = rng.randi_range(0, 99)
	if r < 30:
		return rng.randi_range(-10, 10)
	if r < 55:
		return _int32_from(rng.randi())
	if r < 80:
		return _int64_from(rng.randi(), rng.randi())
	match rng.randi_range(0, 3):
		0:
			return INT32_MAX + rng.randi_range(-2, 2)
		1:
			return INT32_MIN + rng.randi_range(-2, 2)
		2:
			return INT64_MAX - rng.randi_range(0, 2)
	return INT64_MIN + rng.randi_range(0, 2)


func _rand_i32():
	if rng.randi_range(0, 2) == 0:
		return _int32_from(rng.randi())
	return rng.randi_range(-1000, 1000)


func _rand_float(allow_nan = true):
	var r = rng.randi_range(0, 99)
	var f
	if r < 25:
		f = _double_from(rng.randi(), rng.randi())
	elif r < 50:
		f = _float_from(rng.randi())
	elif r < 70:
		f = rng.randf_range(-1000.0, 1000.0) + rng.randf() / 1024.0
	elif r < 85:
		f = float(rng.randi_range(-100, 100)) / 4.0
	elif r < 95:
		f = _pick(SPECIAL_FLOATS)
		if typeof(f) == TYPE_STRING:
			f = _neg0
	else:
		f = _pick([INF, -INF, NAN, _double_from(0, rng.randi_range(1, 1000)), _float_from(rng.randi_range(1, 1000))])
	if is_nan(f):
		if not allow_nan:
			return _rand_float(false)
		if r < 50:
			return NAN  # a random bit pattern: keep NaNs to the plain one, never payloads
	return f


func _rand_real():
	# A component of a math type (float32 in the engine: assignment rounds it).
	var r = rng.randi_range(0, 9)
	if r < 4:
		var f = _float_from(rng.randi())
		return 0.0 if is_nan(f) else f
	if r < 7:
		return rng.randf_range(-100.0, 100.0)
	if r < 9:
		return float(rng.randi_range(-20, 20)) / 2.0
	return _pick([0.0, _neg0, INF, -INF, 1e-40])


func _rand_char():
	var r = rng.randi_range(0, 99)
	var cp
	if r < 45:
		cp = rng.randi_range(0x20, 0x7E)
	elif r < 50:
		cp = _pick([1, 7, 8, 9, 10, 11, 12, 13, 27, 31, 127])
	elif r < 60:
		cp = rng.randi_range(0x80, 0xFF)
	elif r < 80:
		cp = rng.randi_range(0x100, 0xFFFD)
		if (cp >= 0xD800 and cp <= 0xDFFF) or cp == 0xFEFF:
			cp = 0x4E2D
	else:
		cp = rng.randi_range(0x10000, 0x10FFFF)
	return char(cp)


func _rand_string():
	var n = rng.randi_range(0, 12)
	if rng.randi_range(0, 9) == 0:
		n = rng.randi_range(13, 80)
	var parts = PoolStringArray()
	for _i in n:
		parts.append(_rand_char())
	return parts.join("")


func _rand_name():
	if rng.randi_range(0, 9) == 0:
		return _pick(["..", "."])
	var parts = PoolStringArray()
	for _i in rng.randi_range(1, 9):
		if rng.randi_range(0, 9) == 0:
			parts.append(_pick(NAME_EXTRA))
		else:
			var k = rng.randi_range(0, NAME_CHARS.length() - 1)
			parts.append(NAME_CHARS.substr(k, 1))
	return parts.join("")


func _rand_nodepath():
	var names = PoolStringArray()
	for _i in rng.randi_range(0, 3):
		names.append(_rand_name())
	var subs = PoolStringArray()
	if rng.randi_range(0, 2) == 0:
		for _i in rng.randi_range(1, 2):
			subs.append(_rand_name().replace(".", "p"))
	var s = "/" if rng.randi_range(0, 2) == 0 else ""
	s += names.join("/")
	if subs.size() > 0:
		s += ":" + subs.join(":")
	return NodePath(s)


func _rand_v2():
	return Vector2(_rand_real(), _rand_real())


func _rand_v3():
	return Vector3(_rand_real(), _rand_real(), _rand_real())


func _rand_color():
	if rng.randi_range(0, 3) == 0:
		return Color(_rand_real(), _rand_real(), _rand_real(), _rand_real())
	return Color(rng.randf(), rng.randf(), rng.randf(), rng.randf())


func _rand_bytes():
	var b = PoolByteArray()
	for _i in _pool_count():
		b.append(rng.randi_range(0, 255))
	return b


func _rand_object(depth):
	var o
	match rng.randi_range(0, 8):
		0:
			o = Reference.new()
		1:
			o = Resource.new()
		2:
			var g = Gradient.new()
			var offs = PoolRealArray()
			var cols = PoolColorArray()
			for _i in rng.randi_range(1, 4):
				offs.append(rng.randf())
				cols.append(_rand_color())
			g.offsets = offs
			g.colors = cols
			o = g
		3:
			var pm = PhysicsMaterial.new()
			pm.friction = rng.randf_range(0, 2)
			pm.rough = rng.randi_range(0, 1) == 1
			o = pm
		4:
			var bs = BoxShape.new()
			bs.extents = Vector3(rng.randf_range(0, 10), rng.randf_range(0, 10), rng.randf_range(0, 10))
			o = bs
		5:
			var key = InputEventKey.new()
			key.scancode = rng.randi_range(32, 126)
			key.pressed = rng.randi_range(0, 1) == 1
			o = key
		6:
			var c2 = Curve2D.new()
			for _i in rng.randi_range(0, 3):
				c2.add_point(_rand_v2())
			o = c2
		7:
			var spb = StreamPeerBuffer.new()
			spb.data_array = _rand_bytes()
			o = spb
		_:
			var cv = Curve.new()
			for _i in rng.randi_range(0, 3):
				cv.add_point(Vector2(rng.randf(), rng.randf()))
			o = cv
	if o is Resource:
		if rng.randi_range(0, 1) == 0:
			o.resource_name = _rand_string()
		o.resource_local_to_scene = rng.randi_range(0, 4) == 0
	if depth < MAX_DEPTH and rng.randi_range(0, 3) == 0:
		o.set_meta("m", _rand_value(depth + 1))
	return _kept(o)


func _rand_of_type(t, depth):
	match t:
		TYPE_NIL:
			return null
		TYPE_BOOL:
			return rng.randi_range(0, 1) == 1
		TYPE_INT:
			return _rand_int()
		TYPE_REAL:
			return _rand_float()
		TYPE_STRING:
			return _rand_string()
		TYPE_VECTOR2:
			return _rand_v2()
		TYPE_RECT2:
			return Rect2(_rand_v2(), _rand_v2())
		TYPE_VECTOR3:
			return _rand_v3()
		TYPE_TRANSFORM2D:
			return Transform2D(_rand_v2(), _rand_v2(), _rand_v2())
		TYPE_PLANE:
			return Plane(_rand_real(), _rand_real(), _rand_real(), _rand_real())
		TYPE_QUAT:
			return Quat(_rand_real(), _rand_real(), _rand_real(), _rand_real())
		TYPE_AABB:
			return AABB(_rand_v3(), _rand_v3())
		TYPE_BASIS:
			return Basis(_rand_v3(), _rand_v3(), _rand_v3())
		TYPE_TRANSFORM:
			return Transform(Basis(_rand_v3(), _rand_v3(), _rand_v3()), _rand_v3())
		TYPE_COLOR:
			return _rand_color()
		TYPE_NODE_PATH:
			return _rand_nodepath()
		TYPE_RID:
			return _rid_real if rng.randi_range(0, 1) == 0 else RID()
		TYPE_OBJECT:
			return _rand_object(depth)
		TYPE_DICTIONARY:
			return _rand_dict(depth)
		TYPE_ARRAY:
			return _rand_array(depth)
		TYPE_RAW_ARRAY:
			return _rand_bytes()
		TYPE_INT_ARRAY:
			var a = PoolIntArray()
			for _i in _pool_count():
				a.append(_rand_i32())
			return a
		TYPE_REAL_ARRAY:
			var a = PoolRealArray()
			for _i in _pool_count():
				a.append(_rand_real())
			return a
		TYPE_STRING_ARRAY:
			var a = PoolStringArray()
			for _i in _pool_count():
				a.append(_rand_string())
			return a
		TYPE_VECTOR2_ARRAY:
			var a = PoolVector2Array()
			for _i in _pool_count():
				a.append(_rand_v2())
			return a
		TYPE_VECTOR3_ARRAY:
			var a = PoolVector3Array()
			for _i in _pool_count():
				a.append(_rand_v3())
			return a
		TYPE_COLOR_ARRAY:
			var a = PoolColorArray()
			for _i in _pool_count():
				a.append(_rand_color())
			return a
	printerr("_rand_of_type: unhandled %d" % t)
	return null


func _rand_key(depth):
	# Dictionary keys: no NaN (never equal to itself), no objects, no Pool arrays (Godot 3.2.3 and
	# 3.6.2 can crash encoding those).
	match rng.randi_range(0, 13):
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
			return _rand_v2()
		8:
			return _rand_of_type(_pick(KEY_MATH_TYPES), depth)
		9:
			return _rand_nodepath()
		10:
			return RID()
		11:
			if depth < MAX_DEPTH:
				var a = []
				for _i in rng.randi_range(0, 3):
					a.append(_rand_key(depth + 1))
				return a
		12:
			if depth < MAX_DEPTH:
				var d = {}
				for _i in rng.randi_range(0, 3):
					d[_rand_key(depth + 1)] = _rand_key(depth + 1)
				return d
	return _rand_string()


func _rand_array(depth):
	var items = []
	if depth >= MAX_DEPTH:
		return items
	for _i in _small_count():
		items.append(_rand_value(depth + 1))
	return items


func _rand_dict(depth):
	var d = {}
	if depth >= MAX_DEPTH:
		return d
	for _i in _small_count():
		d[_rand_key(depth + 1)] = _rand_value(depth + 1)
	return d


func _rand_value(depth):
	# Every Godot 3 type (0..26) with equal weight, plus extra weight for Array and Dictionary.
	var r = rng.randi_range(0, 35)
	var t = r
	if r >= 27:
		t = TYPE_ARRAY if r < 32 else TYPE_DICTIONARY
	if depth >= MAX_DEPTH and (t == TYPE_ARRAY or t == TYPE_DICTIONARY or t == TYPE_OBJECT):
		t = _pick(LEAF_TYPES)
	return _rand_of_type(t, depth)


# ---------------------------------------------------------------- decode

func _hex_nibble(c):
	if c >= 0x30 and c <= 0x39:
		return c - 0x30
	if c >= 0x61 and c <= 0x66:
		return c - 0x61 + 10
	if c >= 0x41 and c <= 0x46:
		return c - 0x41 + 10
	return -1


func _hex_to_bytes(hex):
	# Returns a PoolByteArray, or null when hex is not an even-length string of hex digits.
	var n = hex.length()
	if n % 2 != 0:
		return null
	var out = PoolByteArray()
	out.resize(n / 2)
	for i in n / 2:
		var hi = _hex_nibble(hex.ord_at(2 * i))
		var lo = _hex_nibble(hex.ord_at(2 * i + 1))
		if hi < 0 or lo < 0:
			return null
		out[i] = hi * 16 + lo
	return out


func _text(in_path, out_path):
	# IN: texts, each a u32 length + UTF-8; OUT: per text, the bytes (with objects) of
	# str2var(text) and var2str of that value. (str2var gives back the text itself on an error.)
	var fin = _open(in_path, File.READ)
	if fin == null:
		return 1
	var f = _open(out_path, File.WRITE)
	if f == null:
		return 1
	while fin.get_position() < fin.get_len():
		var n = fin.get_32()
		var text = fin.get_buffer(n).get_string_from_utf8()
		var v = str2var(text)
		f.store_line('{"bytes": "%s", "text": %s}' % [var2bytes(v, true).hex_encode(), _jstr(var2str(v))])
	f.close()
	return 0


func _decode(in_path, out_path):
	var fin = _open(in_path, File.READ)
	if fin == null:
		return 1
	var f = _open(out_path, File.WRITE)
	if f == null:
		return 1
	while not fin.eof_reached():
		var line = fin.get_line()
		if line.strip_edges() == "":
			continue
		var cols = line.split("\t")
		var allow = cols.size() > 1 and cols[1].strip_edges() == "1"
		var b = _hex_to_bytes(cols[0].strip_edges())
		if b == null:
			f.store_line('{"ok": false, "bad_hex": true, "type_byte": null, "value": null}')
			continue
		var type_byte = "null"
		if b.size() > 0:
			type_byte = str(b[0])
		var got = _get_var(b, allow)
		var v = got[1]
		var vt = typeof(v)
		if not got[0]:
			f.store_line('{"ok": false, "type_byte": %s, "variant_type": %d, "value": null}' % [type_byte, vt])
			continue
		_pool_key_seen = false
		var desc = _json(describe(v))
		var line_out = '{"ok": true, "type_byte": %s, "variant_type": %d, "size": %d, "value": %s' % [
				type_byte, vt, _shortest_prefix(b, allow), desc]
		if not _pool_key_seen:
			line_out += ', "bytes": "%s", "bytes_objects": "%s"' % [var2bytes(v).hex_encode(),
					var2bytes(v, true).hex_encode()]
		f.store_line(line_out + "}")
	f.close()
	fin.close()
	return 0


func _get_var(b, allow):
	# [ok, value] for the bytes b decoded as one value (the verdict rule is in the header).
	var peer = StreamPeerBuffer.new()
	peer.put_u32(b.size())
	peer.put_data(b)
	peer.seek(0)
	var v = peer.get_var(allow)
	if typeof(v) == TYPE_OBJECT and is_instance_valid(v) and not (v is Reference):
		_to_free.append(v)
	return [typeof(v) != TYPE_NIL or (b.size() >= 4 and b[0] == 0), v]


func _shortest_prefix(b, allow):
	# Godot 3 reports no consumed size to scripts. Trailing bytes never change a verdict, so
	# the shortest prefix of b that still decodes is found by bisection: the bytes the value
	# needs (the consumed size, except where the decoder tolerates missing padding).
	var lo = 0  # known to fail (an empty input always does)
	var hi = b.size()  # known to decode
	while hi - lo > 1:
		var mid = (lo + hi) / 2
		if _get_var(b.subarray(0, mid - 1), allow)[0]:
			hi = mid
		else:
			lo = mid
	return hi


# ---------------------------------------------------------------- net
#
# One session of the live network test as a client (the Python side is tests/support/net_session.py);
# KIND is stream (StreamPeerTCP) or pps (PacketPeerStream):
#   1. COUNT times: send a random value v, then var2bytes(v) as bytes; read the echo e;
#      send var2bytes(e).
#   2. Read a count n; n times, read a value and send it back.
#   3. Send "bye".

const NET_TIMEOUT_MS = 30000
const NET_MAX_VALUE = 16000  # keeps two values well inside PacketPeerStream's 65,531 bytes

var _tcp = null
var _pps = null


func _net_client(kind, host, port, seed_value, count):
	rng.seed = seed_value
	_tcp = StreamPeerTCP.new()
	if _tcp.connect_to_host(host, port) != OK:
		printerr("connect_to_host failed")
		return 1
	var t0 = OS.get_ticks_msec()
	while _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		if _tcp.get_status() == StreamPeerTCP.STATUS_ERROR or OS.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
			printerr("could not connect to %s:%d" % [host, port])
			return 1
		OS.delay_msec(1)
	_tcp.set_no_delay(true)
	if kind == "pps":
		_pps = PacketPeerStream.new()
		_pps.stream_peer = _tcp
	elif kind != "stream":
		printerr("unknown client kind %s" % kind)
		return 2
	var code = _net_session(count)
	_tcp.disconnect_from_host()
	return code


func _net_send(v):
	var err = OK
	if _pps == null:
		_tcp.put_var(v)  # returns nothing; a lost connection shows in the status
		if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			err = ERR_CONNECTION_ERROR
	else:
		err = _pps.put_var(v)
	if err != OK:
		printerr("put_var failed: %d" % err)
		return false
	return true


func _net_recv():
	# [true, value], or [false, null] after a timeout or a lost connection.
	if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		printerr("connection lost")
		return [false, null]
	if _pps == null:
		return [true, _tcp.get_var()]  # blocks until the whole frame is in
	var t0 = OS.get_ticks_msec()
	while _pps.get_available_packet_count() == 0:
		if OS.get_ticks_msec() - t0 > NET_TIMEOUT_MS:
			printerr("no packet within %d ms" % NET_TIMEOUT_MS)
			return [false, null]
		OS.delay_usec(50)
	return [true, _pps.get_var()]


func _net_session(count):
	var sent = 0
	while sent < count:
		var v = _rand_value(0)
		var b = var2bytes(v)
		if b != var2bytes(v, true) or b.size() > NET_MAX_VALUE:
			continue  # objects become new instances on the way back; see the golden tests
		if not _net_send(v) or not _net_send(b):
			return 1
		var r = _net_recv()
		if not r[0] or not _net_send(var2bytes(r[1])):
			return 1
		sent += 1
	var head = _net_recv()
	if not head[0]:
		return 1
	for _i in range(int(head[1])):
		var r = _net_recv()
		if not r[0] or not _net_send(r[1]):
			return 1
	return 0 if _net_send("bye") else 1


# ---------------------------------------------------------------- limits

func _limits(out_path):
	# What a default PacketPeerStream sends and delivers, and PacketPeer's encode limit.
	var facts = {}
	for n in [65528, 65531, 65532, 65533]:
		var payload = PoolByteArray()
		payload.resize(n)
		var sender = PacketPeerStream.new()
		sender.stream_peer = StreamPeerBuffer.new()
		facts["pps_send_%d" % n] = sender.put_packet(payload)
		var wide = PacketPeerStream.new()  # sends anything, to see what a default peer receives
		wide.output_buffer_max_size = 1 << 20
		var wire = StreamPeerBuffer.new()
		wide.stream_peer = wire
		wide.put_packet(payload)
		wire.seek(0)
		var receiver = PacketPeerStream.new()
		receiver.stream_peer = wire
		facts["pps_receive_%d" % n] = receiver.get_available_packet_count()
	var udp = PacketPeerUDP.new()
	facts["encode_buffer_max_size"] = udp.encode_buffer_max_size
	for n in [8388608, 8388612]:
		var b = PoolByteArray()
		b.resize(n - 8)  # a PoolByteArray's encoding: 8 bytes of header and size, then the bytes
		facts["put_var_%d" % n] = udp.put_var(b)
	var f = File.new()
	if f.open(out_path, File.WRITE) != OK:
		printerr("cannot write %s" % out_path)
		return 1
	f.store_line(to_json(facts))
	f.close()
	return 0


# ---------------------------------------------------------------- save files
#
# As in godot4_oracle.gd: a file is named MODE_CONTENT.sav; CONTENT is "values" (the COUNT
# values listed in manifest.txt), "empty" or "exact" (one record of exactly 4096 bytes).

const SAVE_MODES = ["plain", "plain_be", "key", "pass", "pass_utf8", "fastlz", "deflate", "zstd", "gzip"]


func _open_save(path, mode, write):
	var how = File.WRITE if write else File.READ
	var key = PoolByteArray()
	for i in range(32):
		key.append(i)
	var f = File.new()
	var err = ERR_INVALID_PARAMETER
	match mode:
		"plain", "plain_be":
			err = f.open(path, how)
		"key":
			err = f.open_encrypted(path, how, key)
		"pass":
			err = f.open_encrypted_with_pass(path, how, "secret")
		"pass_utf8":
			err = f.open_encrypted_with_pass(path, how, "pässwörd")
		"fastlz":
			err = f.open_compressed(path, how, File.COMPRESSION_FASTLZ)
		"deflate":
			err = f.open_compressed(path, how, File.COMPRESSION_DEFLATE)
		"zstd":
			err = f.open_compressed(path, how, File.COMPRESSION_ZSTD)
		"gzip":
			err = f.open_compressed(path, how, File.COMPRESSION_GZIP)
	if err != OK:
		return err
	if mode == "plain_be":
		f.endian_swap = true  # after opening: only the record lengths are swapped
	return f


func _savefiles(dir, seed_value, count):
	rng.seed = seed_value
	var values = []
	var manifest = File.new()
	if manifest.open(dir.plus_file("manifest.txt"), File.WRITE) != OK:
		return 1
	while values.size() < count:
		var v = _rand_value(0)
		if var2bytes(v) == var2bytes(v, true):
			values.append(v)
			manifest.store_line(var2bytes(v).hex_encode())
	manifest.close()
	var exact = PoolByteArray()
	exact.resize(4096 - 12)
	for i in range(exact.size()):
		exact[i] = 0
	for mode in SAVE_MODES:
		for content in ["values", "empty", "exact"]:
			var f = _open_save(dir.plus_file("%s_%s.sav" % [mode, content]), mode, true)
			if typeof(f) == TYPE_INT:
				printerr("cannot write %s_%s: %d" % [mode, content, f])
				return 1
			if content == "values":
				for v in values:
					f.store_var(v)
			elif content == "exact":
				f.store_var(exact)
			f.close()
	return 0


func _readsaves(dir, out_path):
	var out = File.new()
	if out.open(out_path, File.WRITE) != OK:
		return 1
	var d = Directory.new()
	if d.open(dir) != OK:
		return 1
	var names = []
	d.list_dir_begin(true)
	var n = d.get_next()
	while n != "":
		if n.ends_with(".sav"):
			names.append(n)
		n = d.get_next()
	names.sort()
	for name in names:
		var base = name.get_basename()
		var mode = base.substr(0, base.find_last("_"))
		var f = _open_save(dir.plus_file(name), mode, false)
		if typeof(f) == TYPE_INT:
			out.store_line(to_json({"name": name, "ok": false, "error": f}))
			continue
		var records = []
		while f.get_position() < f.get_len():
			records.append(var2bytes(f.get_var()).hex_encode())
		f.close()
		out.store_line(to_json({"name": name, "ok": true, "records": records}))
	out.close()
	return 0
