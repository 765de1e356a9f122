/* The compiled twin of gdvariant._json._pyjson: JSON.stringify(JSON.from_native(v)) in C, and
 * to_json's tagged form further down (with its own comment).
 *
 * write(value, plan, fallback) -> str, or NotImplemented, is the text of to_json(value,
 * dialect="godot") without indent, for the values a save is made of: None, bool, int, float,
 * str, StringName, exact list/tuple/dict, bytes, PackedStringArray and the math and numeric
 * packed classes named in the plan. Every other value goes to fallback(value), the pure path's
 * own text of it (stringify(from_native_tree(value))), which also raises every error; a value
 * nested deeper than MAX_NEST gives NotImplemented, and the pure path writes the whole value.
 * The plan comes from gdvariant._json.godot.compiled_plan:
 *   (maths, packed, StringName, PackedStringArray)
 * maths:  {class: (name, int_args, flatten or None)}  (flatten gives the components in order)
 * packed: {class: (name, kind)}  kind "i"/"q" int32/int64, "f" float32, "d" doubles written
 *         as doubles, "D" doubles written as float32 (real_t)
 * Floats print as the pure path's godot_num does: C's %.*f (as Python's, correctly rounded),
 * trailing zeros stripped (tests/json/test_core.py compares the two).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_NEST 256
#define HANDBACK 2
#define MAX_DECIMALS 32

typedef struct {
    char *p;
    Py_ssize_t n, cap;
} Buf;

static int grow(Buf *b, Py_ssize_t extra) {
    if (b->n + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) {
        if (cap > PY_SSIZE_T_MAX / 4) { PyErr_NoMemory(); return -1; }
        cap *= 2;
    }
    char *p = PyMem_Realloc(b->p, (size_t)cap);
    if (!p) { PyErr_NoMemory(); return -1; }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int put(Buf *b, const char *s, Py_ssize_t len) {
    if (grow(b, len) < 0) return -1;
    memcpy(b->p + b->n, s, (size_t)len);
    b->n += len;
    return 0;
}

static int puts_(Buf *b, const char *s) { return put(b, s, (Py_ssize_t)strlen(s)); }

/* The UTF-8 of str s, json_escape'd (\\ " \b \f \n \r \t \v); 1 when s holds NUL or a
 * surrogate (fallback: the pure path refuses or keeps it) */
static int put_escaped(Buf *b, PyObject *s) {
    Py_ssize_t size;
    const char *u = PyUnicode_AsUTF8AndSize(s, &size);
    if (!u) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        return 1;
    }
    if (memchr(u, 0, (size_t)size)) return 1;
    if (grow(b, 2 * size) < 0) return -1;
    for (Py_ssize_t i = 0; i < size; i++) {
        char c = u[i], e = 0;
        switch (c) {
        case '\\': e = '\\'; break;
        case '"': e = '"'; break;
        case '\b': e = 'b'; break;
        case '\f': e = 'f'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\t': e = 't'; break;
        case '\v': e = 'v'; break;
        default: break;
        }
        if (e) { b->p[b->n++] = '\\'; b->p[b->n++] = e; }
        else b->p[b->n++] = c;
    }
    return 0;
}

/* godot_num(value, decimals) for a finite value */
static void godot_num(double value, int decimals, char *out, size_t size) {
    if (decimals > MAX_DECIMALS) decimals = MAX_DECIMALS;
    if (decimals < 0) snprintf(out, size, "%f", value);
    else snprintf(out, size, "%.*f", decimals, value);
    if (!strchr(out, '.')) return;
    size_t n = strlen(out);
    while (n && out[n - 1] == '0') n--;
    if (out[n - 1] == '.') n++;
    out[n] = 0;
}

/* _stringify_float: a bare float as JSON.stringify prints it */
static void bare_float(double value, char *out, size_t size) {
    if (isnan(value)) snprintf(out, size, "null");
    else if (isinf(value)) snprintf(out, size, value > 0 ? "1e99999" : "-1e99999");
    else if (value == 0) snprintf(out, size, "0.0");
    else {
        int d = 14 - (int)floor(log10(fabs(value)));
        godot_num(value, d < 1 ? 1 : d, out, size);
    }
}

/* num_real: the text of a float in an "f:" string */
static void num_real(double value, char *out, size_t size) {
    if (isnan(value)) { snprintf(out, size, "nan"); return; }
    if (isinf(value)) { snprintf(out, size, value < 0 ? "-inf" : "inf"); return; }
    if (value >= -9223372036854775808.0 && value < 9223372036854775808.0) {
        long long whole = (long long)value;
        if ((double)whole == value) { snprintf(out, size, "%lld.0", whole); return; }
    }
    int decimals = 14;
    if (fabs(value) > 10) decimals -= (int)floor(log10(fabs(value)));
    godot_num(value, decimals, out, size);
}

typedef struct {
    PyObject *maths, *packed, *sname_type, *strings_type, *fallback;
} Plan;

static int write_value(Buf *b, PyObject *v, int depth, Plan *pl);

static int fallback(Buf *b, PyObject *v, PyObject *fn) {
    PyObject *text = PyObject_CallOneArg(fn, v);
    if (!text) return -1;
    Py_ssize_t size;
    const char *u = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &size) : NULL;
    if (!u) {
        Py_DECREF(text);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the JSON fallback gave no str");
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        return HANDBACK; /* a lone surrogate: the pure path writes the whole value */
    }
    int r = put(b, u, size);
    Py_DECREF(text);
    return r;
}

static int put_int(Buf *b, PyObject *v) {
    PyObject *s = PyObject_Str(v);
    if (!s) return -1;
    Py_ssize_t size;
    const char *u = PyUnicode_AsUTF8AndSize(s, &size);
    int r = u ? put(b, u, size) : -1;
    Py_DECREF(s);
    return r;
}

static int put_bare(Buf *b, double x, int single) {
    char text[400];
    bare_float(single ? (double)(float)x : x, text, sizeof text);
    return puts_(b, text);
}

/* {"args":[...],"type":name} of a math value; 1 when a component is not plain */
static int write_math(Buf *b, PyObject *v, PyObject *spec) {
    PyObject *name = PyTuple_GET_ITEM(spec, 0), *flatten = PyTuple_GET_ITEM(spec, 2);
    int ints = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 1));
    PyObject *flat = flatten == Py_None ? Py_NewRef(v) : PyObject_CallOneArg(flatten, v);
    if (!flat) return -1;
    PyObject *seq = PySequence_Fast(flat, "components");
    Py_DECREF(flat);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int r = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
        if (ints ? !PyLong_CheckExact(c) : !PyFloat_CheckExact(c)) r = 1;
    }
    if (r == 0) r = puts_(b, "{\"args\":[");
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
        if (i) r = put(b, ",", 1);
        if (r == 0) r = ints ? put_int(b, c) : put_bare(b, PyFloat_AS_DOUBLE(c), 1);
    }
    if (r == 0) r = puts_(b, "],\"type\":\"");
    if (r == 0) r = put_escaped(b, name);
    if (r == 0) r = put(b, "\"}", 2);
    Py_DECREF(seq);
    return r;
}

static int write_packed(Buf *b, PyObject *v, PyObject *spec) {
    const char *kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 1));
    if (!kind) return -1;
    const char *data = PyBytes_AS_STRING(v);
    Py_ssize_t size = PyBytes_GET_SIZE(v);
    char code = kind[0];
    int width = (code == 'i' || code == 'f') ? 4 : 8;
    if (puts_(b, "{\"args\":[") < 0) return -1;
    char text[400];
    for (Py_ssize_t i = 0; i < size / width; i++) {
        const char *at = data + i * width;
        if (code == 'i') { int32_t x; memcpy(&x, at, 4); snprintf(text, sizeof text, "%ld", (long)x); }
        else if (code == 'q') { int64_t x; memcpy(&x, at, 8); snprintf(text, sizeof text, "%lld", (long long)x); }
        else if (code == 'f') { float x; memcpy(&x, at, 4); bare_float((double)x, text, sizeof text); }
        else if (code == 'd') { double x; memcpy(&x, at, 8); bare_float(x, text, sizeof text); }
        else { double x; memcpy(&x, at, 8); bare_float((double)(float)x, text, sizeof text); }
        if ((i && put(b, ",", 1) < 0) || puts_(b, text) < 0) return -1;
    }
    if (puts_(b, "],\"type\":\"") < 0) return -1;
    int r = put_escaped(b, PyTuple_GET_ITEM(spec, 0));
    return r ? r : put(b, "\"}", 2);
}

static int write_prefixed(Buf *b, const char *prefix, PyObject *s) {
    if (put(b, "\"", 1) < 0 || puts_(b, prefix) < 0) return -1;
    int r = put_escaped(b, s);
    return r ? r : put(b, "\"", 1);
}

static int write_items(Buf *b, PyObject *seq, int depth, Plan *pl) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i && put(b, ",", 1) < 0) return -1;
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(seq, i));
        int r = write_value(b, item, depth + 1, pl);
        Py_DECREF(item);
        if (r) return r;
    }
    return 0;
}

static int write_dict(Buf *b, PyObject *v, int depth, Plan *pl) {
    PyObject *items = PyDict_Items(v);
    if (!items) return -1;
    int r = puts_(b, "{\"args\":[");
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(items); i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        if (i) r = put(b, ",", 1);
        if (r == 0) r = write_value(b, PyTuple_GET_ITEM(pair, 0), depth + 1, pl);
        if (r == 0) r = put(b, ",", 1);
        if (r == 0) r = write_value(b, PyTuple_GET_ITEM(pair, 1), depth + 1, pl);
    }
    Py_DECREF(items);
    return r ? r : puts_(b, "],\"type\":\"Dictionary\"}");
}

static int write_value(Buf *b, PyObject *v, int depth, Plan *pl) {
    PyTypeObject *t = Py_TYPE(v);
    if (depth > MAX_NEST) return HANDBACK;
    Py_ssize_t mark = b->n;
    int r = 1;
    if (v == Py_None) return puts_(b, "null");
    if (v == Py_True) return puts_(b, "true");
    if (v == Py_False) return puts_(b, "false");
    if (t == &PyLong_Type) {
        if (puts_(b, "\"i:") < 0 || put_int(b, v) < 0) return -1;
        return put(b, "\"", 1);
    }
    if (t == &PyFloat_Type) {
        char text[400];
        num_real(PyFloat_AS_DOUBLE(v), text, sizeof text);
        if (puts_(b, "\"f:") < 0 || puts_(b, text) < 0) return -1;
        return put(b, "\"", 1);
    }
    if (t == &PyUnicode_Type) r = write_prefixed(b, "s:", v);
    else if ((PyObject *)t == pl->sname_type) r = write_prefixed(b, "sn:", v);
    else if (t == &PyList_Type || t == &PyTuple_Type) {
        if (put(b, "[", 1) < 0) return -1;
        r = write_items(b, v, depth, pl);
        if (r == 0) r = put(b, "]", 1);
        return r;
    } else if (t == &PyDict_Type) {
        return write_dict(b, v, depth, pl);
    } else if (t == &PyBytes_Type) {
        const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(v);
        char text[8];
        if (puts_(b, "{\"args\":[") < 0) return -1;
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(v); i++)
            if ((i && put(b, ",", 1) < 0) || put(b, text, snprintf(text, sizeof text, "%u", data[i])) < 0)
                return -1;
        return puts_(b, "],\"type\":\"PackedByteArray\"}");
    } else if ((PyObject *)t == pl->strings_type) {
        r = puts_(b, "{\"args\":[");
        for (Py_ssize_t i = 0; r == 0 && i < PyTuple_GET_SIZE(v); i++) {
            PyObject *s = PyTuple_GET_ITEM(v, i);
            if (!PyUnicode_CheckExact(s)) { r = 1; break; }
            if (i) r = put(b, ",", 1);
            if (r == 0) r = put(b, "\"", 1);
            if (r == 0) r = put_escaped(b, s);
            if (r == 0) r = put(b, "\"", 1);
        }
        if (r == 0) r = puts_(b, "],\"type\":\"PackedStringArray\"}");
    } else {
        PyObject *spec = PyDict_GetItemWithError(pl->maths, (PyObject *)t);
        if (spec) r = write_math(b, v, spec);
        else if (PyErr_Occurred()) return -1;
        else if ((spec = PyDict_GetItemWithError(pl->packed, (PyObject *)t))) r = write_packed(b, v, spec);
        else if (PyErr_Occurred()) return -1;
    }
    if (r != 1) return r;
    b->n = mark;
    return fallback(b, v, pl->fallback);
}

static PyObject *json_write(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *value, *plan;
    Plan pl;
    if (!PyArg_ParseTuple(args, "OO!O:write", &value, &PyTuple_Type, &plan, &pl.fallback)) return NULL;
    if (!PyArg_ParseTuple(plan, "O!O!OO:plan", &PyDict_Type, &pl.maths, &PyDict_Type, &pl.packed,
                          &pl.sname_type, &pl.strings_type))
        return NULL;
    Buf b = {NULL, 0, 0};
    int r = write_value(&b, value, 0, &pl);
    PyObject *out = NULL;
    if (r == 0) out = PyUnicode_DecodeUTF8(b.p ? b.p : "", b.n, "strict");
    PyMem_Free(b.p);
    if (r == HANDBACK) Py_RETURN_NOTIMPLEMENTED;
    return out;
}

/* ---- the tagged form ------------------------------------------------------------------
 *
 * write_tagged(value, plan, fallback) -> str, or NotImplemented: json.dumps(to_tree(value),
 * ensure_ascii=False, allow_nan=False) (to_json's default form, without indent) for the values
 * a save is made of: None, bool, int in int64, finite float, str, StringName, exact
 * list/tuple, exact dict with str keys (no "$type"), the math classes and the numeric packed
 * arrays named in the plan. Every other value goes to fallback(value), the pure path's text of
 * it, which also raises every error. The plan comes from
 * gdvariant._json.tagged_write.compiled_plan: (maths, packed, StringName), where
 * maths:  {class: (name, int_args, flatten or None)}
 * packed: {class: (name, wide, typecode, width)}
 */

/* json.dumps of a str: \\ " \b \f \n \r \t, other controls as \u00XX; 1 for a surrogate */
static int put_json_str(Buf *b, PyObject *s) {
    Py_ssize_t size;
    const char *u = PyUnicode_AsUTF8AndSize(s, &size);
    if (!u) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        return 1;
    }
    if (grow(b, 6 * size + 2) < 0) return -1;
    b->p[b->n++] = '"';
    for (Py_ssize_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)u[i];
        char e = 0;
        switch (c) {
        case '\\': e = '\\'; break;
        case '"': e = '"'; break;
        case '\b': e = 'b'; break;
        case '\f': e = 'f'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\t': e = 't'; break;
        default: break;
        }
        if (e) { b->p[b->n++] = '\\'; b->p[b->n++] = e; }
        else if (c < 0x20) b->n += sprintf(b->p + b->n, "\\u%04x", c);
        else b->p[b->n++] = (char)c;
    }
    b->p[b->n++] = '"';
    return 0;
}

static int put_repr_float(Buf *b, double x) {
    char *text = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!text) return -1;
    int r = puts_(b, text);
    PyMem_Free(text);
    return r;
}

/* _shortest32: the double nearest the shortest decimal that rounds to float32 x */
static double shortest32(double x) {
    if (x == 0) return x;
    char text[64];
    for (int digits = fabs(x) >= 1.1754943508222875e-38 ? 6 : 1; digits < 10; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        double candidate = strtod(text, NULL);
        if ((double)(float)candidate == x) return candidate;
    }
    return x;
}

static int is_float32(double x) { return (double)(float)x == x; }

typedef struct {
    PyObject *maths, *packed, *sname_type, *fallback;
} Tagged;

static int tagged_value(Buf *b, PyObject *v, int depth, Tagged *pl);

static int tagged_math(Buf *b, PyObject *v, PyObject *spec) {
    PyObject *name = PyTuple_GET_ITEM(spec, 0), *flatten = PyTuple_GET_ITEM(spec, 2);
    int ints = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 1));
    PyObject *flat = flatten == Py_None ? Py_NewRef(v) : PyObject_CallOneArg(flatten, v);
    if (!flat) return -1;
    PyObject *seq = PySequence_Fast(flat, "components");
    Py_DECREF(flat);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int r = 0, wide = 0;
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
        if (ints ? !PyLong_CheckExact(c) : !PyFloat_CheckExact(c)) r = 1;
        else if (!ints && !isfinite(PyFloat_AS_DOUBLE(c))) r = 1;
        else if (!ints && !is_float32(PyFloat_AS_DOUBLE(c))) wide = 1;
    }
    if (r == 0) r = puts_(b, "{\"$type\": ");
    if (r == 0) r = put_json_str(b, name);
    if (r == 0) r = puts_(b, ", \"args\": [");
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
        if (i) r = put(b, ", ", 2);
        if (r == 0 && ints) r = put_int(b, c);
        else if (r == 0) {
            double x = PyFloat_AS_DOUBLE(c);
            r = put_repr_float(b, wide ? x : shortest32(x));
        }
    }
    if (r == 0) r = puts_(b, wide ? "], \"float64\": true}" : "]}");
    Py_DECREF(seq);
    return r;
}

static int tagged_packed(Buf *b, PyObject *v, PyObject *spec) {
    PyObject *name = PyTuple_GET_ITEM(spec, 0);
    int wide = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 1));
    const char *code = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 2));
    long width = PyLong_AsLong(PyTuple_GET_ITEM(spec, 3));
    if (!code || width < 1) return -1;
    int size = (*code == 'i' || *code == 'f') ? 4 : 8;
    const char *data = PyBytes_AS_STRING(v);
    Py_ssize_t n = PyBytes_GET_SIZE(v) / size;
    if (*code == 'f' || *code == 'd') {
        for (Py_ssize_t i = 0; i < n; i++) {
            double x;
            if (*code == 'f') { float f; memcpy(&f, data + i * size, 4); x = f; }
            else memcpy(&x, data + i * size, 8);
            if (isnan(x)) return 1; /* NaN payloads: base64, by the pure path */
        }
    }
    int r = puts_(b, "{\"$type\": ");
    if (r == 0) r = put_json_str(b, name);
    if (r == 0) r = puts_(b, wide ? ", \"float64\": true, \"items\": [" : ", \"items\": [");
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        const char *at = data + i * size;
        if (i) r = put(b, ", ", 2);
        if (r == 0 && width > 1 && i % width == 0) r = put(b, "[", 1);
        if (r) break;
        if (*code == 'i' || *code == 'q') {
            char text[32];
            long long x;
            if (*code == 'i') { int32_t y; memcpy(&y, at, 4); x = y; }
            else { int64_t y; memcpy(&y, at, 8); x = y; }
            r = put(b, text, snprintf(text, sizeof text, "%lld", x));
        } else {
            double x;
            if (*code == 'f') { float f; memcpy(&f, at, 4); x = f; }
            else memcpy(&x, at, 8);
            if (isinf(x)) r = puts_(b, x > 0 ? "\"inf\"" : "\"-inf\"");
            else r = put_repr_float(b, *code == 'f' ? shortest32(x) : x);
        }
        if (r == 0 && width > 1 && i % width == width - 1) r = put(b, "]", 1);
    }
    return r ? r : puts_(b, "]}");
}

static int tagged_dict(Buf *b, PyObject *v, int depth, Tagged *pl) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(v, &pos, &key, &value))
        if (!PyUnicode_CheckExact(key) || PyUnicode_CompareWithASCIIString(key, "$type") == 0) return 1;
    PyObject *items = PyDict_Items(v);
    if (!items) return -1;
    int r = put(b, "{", 1);
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(items); i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        if (i) r = put(b, ", ", 2);
        if (r == 0) r = put_json_str(b, PyTuple_GET_ITEM(pair, 0));
        if (r == 0) r = put(b, ": ", 2);
        if (r == 0) r = tagged_value(b, PyTuple_GET_ITEM(pair, 1), depth + 1, pl);
    }
    Py_DECREF(items);
    if (r == 1) r = HANDBACK; /* a key with a surrogate, part written: the pure path */
    return r ? r : put(b, "}", 1);
}

static int tagged_value(Buf *b, PyObject *v, int depth, Tagged *pl) {
    PyTypeObject *t = Py_TYPE(v);
    if (depth > MAX_NEST) return HANDBACK;
    Py_ssize_t mark = b->n;
    int r = 1;
    if (v == Py_None) return puts_(b, "null");
    if (v == Py_True) return puts_(b, "true");
    if (v == Py_False) return puts_(b, "false");
    if (t == &PyLong_Type) {
        int overflow;
        PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow) return put_int(b, v);
    } else if (t == &PyFloat_Type) {
        if (isfinite(PyFloat_AS_DOUBLE(v))) return put_repr_float(b, PyFloat_AS_DOUBLE(v));
    } else if (t == &PyUnicode_Type) {
        r = put_json_str(b, v);
    } else if ((PyObject *)t == pl->sname_type) {
        r = puts_(b, "{\"$type\": \"StringName\", \"value\": ");
        if (r == 0) r = put_json_str(b, v);
        if (r == 0) r = put(b, "}", 1);
    } else if (t == &PyList_Type || t == &PyTuple_Type) {
        if (put(b, "[", 1) < 0) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i && put(b, ", ", 2) < 0) return -1;
            PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(v, i));
            r = tagged_value(b, item, depth + 1, pl);
            Py_DECREF(item);
            if (r) return r;
        }
        return put(b, "]", 1);
    } else if (t == &PyDict_Type) {
        r = tagged_dict(b, v, depth, pl);
    } else {
        PyObject *spec = PyDict_GetItemWithError(pl->maths, (PyObject *)t);
        if (spec) r = tagged_math(b, v, spec);
        else if (PyErr_Occurred()) return -1;
        else if ((spec = PyDict_GetItemWithError(pl->packed, (PyObject *)t))) r = tagged_packed(b, v, spec);
        else if (PyErr_Occurred()) return -1;
    }
    if (r != 1) return r;
    b->n = mark;
    return fallback(b, v, pl->fallback);
}

static PyObject *json_write_tagged(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *value, *plan;
    Tagged pl;
    if (!PyArg_ParseTuple(args, "OO!O:write_tagged", &value, &PyTuple_Type, &plan, &pl.fallback))
        return NULL;
    if (!PyArg_ParseTuple(plan, "O!O!O:plan", &PyDict_Type, &pl.maths, &PyDict_Type, &pl.packed,
                          &pl.sname_type))
        return NULL;
    Buf b = {NULL, 0, 0};
    int r = tagged_value(&b, value, 0, &pl);
    PyObject *out = NULL;
    if (r == 0) out = PyUnicode_DecodeUTF8(b.p ? b.p : "", b.n, "strict");
    PyMem_Free(b.p);
    if (r == HANDBACK) Py_RETURN_NOTIMPLEMENTED;
    return out;
}

static PyMethodDef methods[] = {
    {"write", json_write, METH_VARARGS, "write(value, plan, fallback) -> str or NotImplemented"},
    {"write_tagged", json_write_tagged, METH_VARARGS,
     "write_tagged(value, plan, fallback) -> str or NotImplemented"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._json._cjson", "The compiled JSON writers.", -1,
    methods,
};

PyMODINIT_FUNC PyInit__cjson(void) { return PyModule_Create(&module); }
