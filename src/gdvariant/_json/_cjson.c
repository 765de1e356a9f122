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
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_NEST 256
#if defined(__SIZEOF_INT128__)
#define HAVE_U128 1
typedef unsigned __int128 u128;
#endif
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

/* 5^0 .. 5^27 (5^27 < 2^63) */
static const uint64_t pow5[28] = {
    1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
    9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
    152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL, 95367431640625ULL,
    476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
    298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL,
};

/* "%.*f" of a finite nonzero value with 1 to MAX_DECIMALS decimals, trailing zeros stripped
 * (one kept), without snprintf: value = m 2^e exactly (m odd), so value 10^decimals is
 * m 5^decimals 2^(e + decimals), an integer of at most 127 bits here (m under 2^52, 5^32
 * under 2^75) shifted, and rounding it to nearest, ties to even, is what C's printf does with
 * the exact value. 1 written, 0 not (a value whose digits do not fit that). */
static int fast_fixed(double value, int decimals, char *out) {
#ifdef HAVE_U128
    uint64_t bits;
    memcpy(&bits, &value, 8);
    int field = (int)(bits >> 52 & 0x7ff);
    if (field == 0 || field == 0x7ff || decimals < 1 || decimals > MAX_DECIMALS) return 0;
    uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e = field - 1075, zeros = __builtin_ctzll(m);
    m >>= zeros, e += zeros;
    if (m >> 52) return 0;
    u128 n = (u128)m * pow5[decimals < 27 ? decimals : 27]; /* under 2^127 with the rest: */
    if (decimals > 27) n *= pow5[decimals - 27];
    int shift = e + decimals;
    if (shift >= 0) {
        if (shift > 127 || (n << shift) >> shift != n) return 0;
        n <<= shift;
    } else if (shift <= -127) {
        return 0;
    } else {
        u128 rest = n & (((u128)1 << -shift) - 1), half = (u128)1 << (-shift - 1);
        n >>= -shift;
        if (rest > half || (rest == half && (n & 1))) n++;
    }
    if (n >> 64) return 0;
    uint64_t d = (uint64_t)n;
    char digits[MAX_DECIMALS + 24]; /* 20 digits at most, or the decimals and one */
    int count = 0;
    for (; d; d /= 10) digits[count++] = (char)('0' + d % 10); /* lowest first */
    while (count <= decimals) digits[count++] = '0';
    int at = 0, last = 0; /* last: the lowest nonzero decimal, at least the first */
    while (last < decimals - 1 && digits[last] == '0') last++;
    if (value < 0) out[at++] = '-';
    for (int i = count - 1; i >= decimals; i--) out[at++] = digits[i];
    out[at++] = '.';
    for (int i = decimals - 1; i >= last; i--) out[at++] = digits[i];
    out[at] = 0;
    return 1;
#else
    (void)value, (void)decimals, (void)out;
    return 0;
#endif
}

/* godot_num(value, decimals) for a finite value */
static void godot_num(double value, int decimals, char *out, size_t size) {
    if (decimals > MAX_DECIMALS) decimals = MAX_DECIMALS;
    if (size >= 64 && fast_fixed(value, decimals, out)) return;
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

/* 10^0 .. 10^22, every one exact as a double */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Python's repr of the double nearest digits 10^exp (digits > 0, at most 17 digits), as
 * PyOS_double_to_string(..., 'r', 0, Py_DTSF_ADD_DOT_0): exponent form below 1e-4 and from
 * 1e16 on, else positional, with ".0" for a whole number */
static int put_digits(Buf *b, int negative, uint64_t digits, int exp) {
    char text[48], d[24];
    int n = 0, at = 0;
    while (digits % 10 == 0) digits /= 10, exp++;
    for (uint64_t rest = digits; rest; rest /= 10) n++;
    for (int i = n - 1; i >= 0; i--, digits /= 10) d[i] = (char)('0' + digits % 10);
    int point = n + exp; /* the value is 0.d1d2... 10^point */
    if (negative) text[at++] = '-';
    if (point <= -4 || point > 16) {
        text[at++] = d[0];
        if (n > 1) text[at++] = '.';
        memcpy(text + at, d + 1, (size_t)(n - 1));
        at += n - 1;
        int shown = point - 1 < 0 ? 1 - point : point - 1;
        text[at++] = 'e';
        text[at++] = point - 1 < 0 ? '-' : '+';
        if (shown >= 100) text[at++] = (char)('0' + shown / 100);
        text[at++] = (char)('0' + shown / 10 % 10);
        text[at++] = (char)('0' + shown % 10);
    } else if (point <= 0) {
        text[at++] = '0';
        text[at++] = '.';
        for (int i = 0; i < -point; i++) text[at++] = '0';
        memcpy(text + at, d, (size_t)n);
        at += n;
    } else if (point >= n) {
        memcpy(text + at, d, (size_t)n);
        at += n;
        for (int i = n; i < point; i++) text[at++] = '0';
        text[at++] = '.';
        text[at++] = '0';
    } else {
        memcpy(text + at, d, (size_t)point);
        at += point;
        text[at++] = '.';
        memcpy(text + at, d + point, (size_t)(n - point));
        at += n - point;
    }
    return put(b, text, at);
}

/* ---- float32 digits without printf ----------------------------------------------------------
 *
 * put_float32(b, x) writes repr(_shortest32(x)) for a float32 value x, as the pure writer does:
 * for d = 6, 7, 8, 9 digits, the %.{d}g rounding of x (to nearest, ties to even) is taken when
 * the double nearest it rounds back to x as a float32. shortest32 above does it with snprintf
 * and strtod; the fast path here decides each step with integer arithmetic instead, and hands
 * the value to shortest32 whenever it cannot prove the answer (a subnormal or zero, a rounding
 * within a hair of a tie, a candidate within a hair of the float32 rounding boundaries, where
 * the double rounding in between could matter).
 *
 * x = m 2^e is scaled to X = x / 10^(P-8), P = floor(log10 x), so X is in [1e8, 1e9), held as a
 * 64.64 fixed-point number: m times a 64-bit 10^(8-P) from the table (T 2^s, T rounded to
 * nearest: error under 2^-63 relative), shifted. Its float32 rounding boundaries (the
 * midpoints to the neighbours, the lower one nearer at the bottom of a binade) are scaled the
 * same way. The error of each is under 2^-33 (in units of X); a decision is taken only with a
 * margin of 2^-30 from a tie and 2^-20 from a boundary, which also covers the double rounding
 * (half a double's ulp is under 2^-23 here). The candidate of d digits is X / 10^(9-d) rounded,
 * and its digits are the value's: a decimal of at most nine digits is the shortest repr of the
 * double nearest it (distinct decimals of 15 digits or fewer are distinct doubles).
 * tests/json/test_core.py checks the table against exact arithmetic and the writer against the
 * pure one on millions of bit patterns.
 */
#if defined(HAVE_U128) && (!defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD == 0)
#define FAST_FLOAT32 1

#define POW10_MIN (-30)
#define POW10_MAX 46
/* 10^q = T 2^s for q = POW10_MIN..POW10_MAX, T in [2^63, 2^64) rounded to nearest */
static const struct { uint64_t t; int s; } pow10_table[] = {
    {0xa2425ff75e14fc32ULL, -163}, {0xcad2f7f5359a3b3eULL, -160}, {0xfd87b5f28300ca0eULL, -157},
    {0x9e74d1b791e07e48ULL, -153}, {0xc612062576589ddbULL, -150}, {0xf79687aed3eec551ULL, -147},
    {0x9abe14cd44753b53ULL, -143}, {0xc16d9a0095928a27ULL, -140}, {0xf1c90080baf72cb1ULL, -137},
    {0x971da05074da7befULL, -133}, {0xbce5086492111aebULL, -130}, {0xec1e4a7db69561a5ULL, -127},
    {0x9392ee8e921d5d07ULL, -123}, {0xb877aa3236a4b449ULL, -120}, {0xe69594bec44de15bULL, -117},
    {0x901d7cf73ab0acd9ULL, -113}, {0xb424dc35095cd80fULL, -110}, {0xe12e13424bb40e13ULL, -107},
    {0x8cbccc096f5088ccULL, -103}, {0xafebff0bcb24aaffULL, -100}, {0xdbe6fecebdedd5bfULL, -97},
    {0x89705f4136b4a597ULL, -93}, {0xabcc77118461cefdULL, -90}, {0xd6bf94d5e57a42bcULL, -87},
    {0x8637bd05af6c69b6ULL, -83}, {0xa7c5ac471b478423ULL, -80}, {0xd1b71758e219652cULL, -77},
    {0x83126e978d4fdf3bULL, -73}, {0xa3d70a3d70a3d70aULL, -70}, {0xcccccccccccccccdULL, -67},
    {0x8000000000000000ULL, -63}, {0xa000000000000000ULL, -60}, {0xc800000000000000ULL, -57},
    {0xfa00000000000000ULL, -54}, {0x9c40000000000000ULL, -50}, {0xc350000000000000ULL, -47},
    {0xf424000000000000ULL, -44}, {0x9896800000000000ULL, -40}, {0xbebc200000000000ULL, -37},
    {0xee6b280000000000ULL, -34}, {0x9502f90000000000ULL, -30}, {0xba43b74000000000ULL, -27},
    {0xe8d4a51000000000ULL, -24}, {0x9184e72a00000000ULL, -20}, {0xb5e620f480000000ULL, -17},
    {0xe35fa931a0000000ULL, -14}, {0x8e1bc9bf04000000ULL, -10}, {0xb1a2bc2ec5000000ULL, -7},
    {0xde0b6b3a76400000ULL, -4}, {0x8ac7230489e80000ULL, 0}, {0xad78ebc5ac620000ULL, 3},
    {0xd8d726b7177a8000ULL, 6}, {0x878678326eac9000ULL, 10}, {0xa968163f0a57b400ULL, 13},
    {0xd3c21bcecceda100ULL, 16}, {0x84595161401484a0ULL, 20}, {0xa56fa5b99019a5c8ULL, 23},
    {0xcecb8f27f4200f3aULL, 26}, {0x813f3978f8940984ULL, 30}, {0xa18f07d736b90be5ULL, 33},
    {0xc9f2c9cd04674edfULL, 36}, {0xfc6f7c4045812296ULL, 39}, {0x9dc5ada82b70b59eULL, 43},
    {0xc5371912364ce305ULL, 46}, {0xf684df56c3e01bc7ULL, 49}, {0x9a130b963a6c115cULL, 53},
    {0xc097ce7bc90715b3ULL, 56}, {0xf0bdc21abb48db20ULL, 59}, {0x96769950b50d88f4ULL, 63},
    {0xbc143fa4e250eb31ULL, 66}, {0xeb194f8e1ae525fdULL, 69}, {0x92efd1b8d0cf37beULL, 73},
    {0xb7abc627050305aeULL, 76}, {0xe596b7b0c643c719ULL, 79}, {0x8f7e32ce7bea5c70ULL, 83},
    {0xb35dbf821ae4f38cULL, 86}, {0xe0352f62a19e306fULL, 89},
};

#define TIE_MARGIN ((u128)1 << 34)  /* 2^-30 in units of X */
#define EDGE_MARGIN ((u128)1 << 44) /* 2^-20 */

/* n 2^e / 10^(P-8) in 64.64 fixed point (n < 2^27; the result is under 2^31) */
static u128 scaled(uint64_t n, int e, int p) {
    int q = 8 - p;
    u128 product = (u128)n * pow10_table[q - POW10_MIN].t;
    int shift = e + pow10_table[q - POW10_MIN].s + 64;
    if (shift >= 0) return product << shift;
    return -shift >= 128 ? 0 : product >> -shift;
}

/* The candidate of X / step rounded: 1 taken (digits in *q), 0 outside the rounding interval
 * (below, above), -1 not proven */
static inline int candidate(u128 x, u128 below, u128 above, uint64_t step, uint64_t *q) {
    uint64_t whole = (uint64_t)(x >> 64);
    *q = whole / step;
    u128 rest = x - ((u128)(*q * step) << 64), half = (u128)step << 63;
    if ((rest > half ? rest - half : half - rest) <= TIE_MARGIN) return -1;
    if (rest > half) ++*q;
    u128 c = (u128)(*q * step) << 64;
    if (c > below + EDGE_MARGIN && c + EDGE_MARGIN < above) return 1;
    return c + EDGE_MARGIN < below || c > above + EDGE_MARGIN ? 0 : -1;
}

/* The digits and exponent of _shortest32(x) (x a float32 value): 1 when proven, 0 when not */
static int fast_shortest32(float f, uint64_t *digits, int *exp) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    int field = (int)(bits >> 23 & 0xff);
    if (field == 0 || field == 0xff) return 0;
    uint64_t m = (bits & 0x7fffff) | 0x800000;
    int e = field - 150;
    /* floor(log10 2^(field - 127)): P or P - 1 (78913 / 2^18 is log10 2 to 6 digits) */
    int p = (int)(((int64_t)(field - 127) * 78913) >> 18);
    u128 low = ((u128)100000000) << 64, high = ((u128)1000000000) << 64, x = 0;
    for (int tries = 0; tries < 2; tries++) {
        if (8 - p < POW10_MIN || 8 - p > POW10_MAX) return 0;
        x = scaled(m, e, p);
        if ((x < low + TIE_MARGIN && x + TIE_MARGIN > low) ||
            (x < high + TIE_MARGIN && x + TIE_MARGIN > high))
            return 0; /* too near a power of ten to be sure of P */
        if (x < low) p--;
        else if (x >= high) p++;
        else break;
    }
    if (x < low || x >= high) return 0;
    u128 below = scaled(4 * m - ((m == 0x800000 && field > 1) ? 1 : 2), e - 2, p);
    u128 above = scaled(4 * m + 2, e - 2, p);
    int r = 0;
    for (int i = 0; i < 4 && r == 0; i++) {
        switch (i) { /* constant divisors */
        case 0: r = candidate(x, below, above, 1000, digits); break;
        case 1: r = candidate(x, below, above, 100, digits); break;
        case 2: r = candidate(x, below, above, 10, digits); break;
        default: r = candidate(x, below, above, 1, digits); break;
        }
        *exp = p - 5 - i; /* digits 6 + i */
    }
    return r == 1;
}
#endif

/* repr(x) of a double when it has at most 15 significant digits, the common case of a number
 * a person or round() made: 1 written, 0 not (x has more, or is outside 1e-8..1e37, or zero).
 * Distinct decimals of 15 digits or fewer are distinct doubles, so one that reads back as x
 * is the only one, and so the shortest: repr's digits. A candidate D 10^-k comes from
 * x 10^k in double arithmetic (D and its neighbours, 15 digits at most), and reading it back
 * is exact arithmetic's answer when D < 2^53 and k is within 22 (as fast_decimal). */
static int put_short_double(Buf *b, double x) {
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD == 0
    double a = fabs(x);
    if (!(a >= 1e-8 && a < 1e37)) return 0;
    int k = 14 - (int)floor(log10(a));
    if (k < -22 || k > 22) return 0;
    double y = k >= 0 ? a * exact_pow10[k] : a / exact_pow10[-k];
    if (!(y < 1e15 + 2)) return 0;
    int64_t centre = (int64_t)(y + 0.5);
    for (int64_t d = centre - 1; d <= centre + 1; d++) {
        if (d <= 0 || d > 1000000000000000LL) continue;
        double back = k >= 0 ? (double)d / exact_pow10[k] : (double)d * exact_pow10[-k];
        if (back == a) return put_digits(b, x < 0, (uint64_t)d, -k) < 0 ? -1 : 1;
    }
#else
    (void)b, (void)x;
#endif
    return 0;
}

/* repr(x) of a finite double */
static int put_double(Buf *b, double x) {
    int r = put_short_double(b, x);
    return r ? (r < 0 ? -1 : 0) : put_repr_float(b, x);
}

/* repr(_shortest32(x)) for a finite float32 value x */
static int put_float32(Buf *b, double x) {
#ifdef FAST_FLOAT32
    uint64_t digits;
    int exp;
    if (fast_shortest32((float)x, &digits, &exp)) return put_digits(b, x < 0, digits, exp);
#endif
    return put_repr_float(b, shortest32(x));
}

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
            r = wide ? put_double(b, x) : put_float32(b, x);
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
            else r = *code == 'f' ? put_float32(b, x) : put_double(b, x);
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
        if (isfinite(PyFloat_AS_DOUBLE(v))) return put_double(b, PyFloat_AS_DOUBLE(v));
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

/* ---- from_json: the readers -------------------------------------------------------------
 *
 * Both readers take the tree of the text (from the plain parser below for ASCII text without
 * escapes, else from CPython's own JSON scanner, which is C too) and build the values in C.
 * read_tagged(text, plan) and read_godot(text, plan) return the value, or NotImplemented, and
 * then the pure reader reads the whole text and gives the value or the error (it is the
 * reference; these never raise for bad input). The scanner is strict JSON, a subset of what
 * both pure readers take, so whatever it refuses is handed back; the plain parser reads a
 * subset of what the scanner takes.
 * Anything not plain (a rare tagged type, a typed container, a number in an unusual form) goes
 * to the plan's fallback(node[, level]), the pure reader of that one node; any error it raises
 * hands the whole text back, so errors and their paths are always the pure reader's.
 *   tagged plan: (maths, packed, fallback)   the text through JSONDecoder(object_pairs_hook=
 *                pairs)
 *   godot plan:  (maths, packed, StringName, NodePath, fallback), one per allow_objects;
 *                through JSONDecoder(parse_float=strtod, parse_int=strtod)
 *   both decoders refuse NaN and Infinity (parse_constant=refuse)
 * maths: {type name: (int components, size, build)}, build(list of components) -> value.
 * packed: tagged {type name: (narrow, wide or None)}, godot {type name: narrow}, each one
 *         (class, array typecode "i"/"q"/"f"/"d", components per element); the value is
 *         class.frombuffer(the little-endian numbers), what class(numbers) makes of them.
 * The cyclic garbage collector is paused while they read: the trees and values they build
 * hold no cycles, and its passes over the growing tree took 40% of the time on a save.
 * A tree deeper than READ_NEST is handed back whole (the pure readers' depth errors stay
 * theirs, and the C stack stays shallow).
 */
#define READ_NEST 900

/* object_pairs_hook: an object's pairs as a dict; a repeated key raises, which hands back */
static PyObject *json_pairs(PyObject *self, PyObject *list) {
    (void)self;
    if (!PyList_CheckExact(list)) {
        PyErr_SetString(PyExc_TypeError, "pairs takes a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(list, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            PyDict_SetItem(d, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0) {
            Py_DECREF(d);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "pairs takes 2-tuples");
            return NULL;
        }
    }
    if (PyDict_GET_SIZE(d) != n) {
        Py_DECREF(d);
        PyErr_SetString(PyExc_ValueError, "a repeated key");
        return NULL;
    }
    return d;
}

/* A JSON number token read in one pass: what Godot's strtod keeps of it (the first 18 digits,
 * leading zeros included, the count of digits and the point's place among them, the exponent
 * capped as it caps it), and whether it has float syntax */
typedef struct {
    int negative, is_float, exp_negative, exp_digits;
    uint64_t head;
    Py_ssize_t size, total, point;
    long long exp;
} Token;

/* Godot's built_in_strtod of a number token (as gdvariant._floats.godot_strtod), from what
 * was kept of it: at most 18 mantissa digits (leading zeros count) as 1e9 * head + tail, then
 * one multiply or divide by 10^|exp|, the power built from 1e1, 1e2, 1e4 ... 1e256 (exact up
 * to 1e22, so those come from a table) */
static double godot_token_value(const Token *t) {
    static const double powers[] = {1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256};
    Py_ssize_t point = t->point < 0 ? t->total : t->point;
    long long e = t->total > 18 ? (long long)point - 18 : (long long)point - t->total;
    double fraction = 1.0e9 * (double)(t->head / 1000000000ULL) +
                      (double)(t->head % 1000000000ULL);
    e = t->exp_negative ? e - t->exp : e + t->exp;
    int divide = e < 0;
    e = e < 0 ? -e : e;
    if (e > 511) e = 511;
    double scale = 1.0;
    if (e <= 22) {
        scale = exact_pow10[e];
    } else {
        for (int k = 0; k < 9 && e; k++, e >>= 1)
            if (e & 1) scale *= powers[k];
    }
    fraction = divide ? fraction / scale : fraction * scale;
    return t->negative ? -fraction : fraction;
}

/* godot_token_value of an ASCII number token, which may also have a + sign or no digit
 * before or after its point (an "f:" string's) */
static double godot_strtod_c(const char *s, Py_ssize_t n) {
    Token t = {0};
    Py_ssize_t i = 0;
    t.point = -1;
    if (i < n && (s[i] == '-' || s[i] == '+')) t.negative = s[i++] == '-';
    for (; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') { t.point = t.total; continue; }
        if (t.size < 18) { t.head = t.head * 10 + (unsigned)(s[i] - '0'); t.size++; }
        t.total++;
    }
    if (t.size == 0) return t.negative ? -0.0 : 0.0;
    if (i < n) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) t.exp_negative = s[i++] == '-';
        Py_ssize_t start = i;
        int all_digits = i < n;
        for (; i < n; i++) {
            if (s[i] < '0' || s[i] > '9') { all_digits = 0; break; }
            if (t.exp < 1000000000000000LL) t.exp = t.exp * 10 + (s[i] - '0');
        }
        if (!all_digits || start == n) t.exp = 0;
    }
    return godot_token_value(&t);
}

/* parse_float / parse_int of the Godot-dialect decoder: every JSON number is a double */
static PyObject *json_strtod(PyObject *self, PyObject *text) {
    (void)self;
    Py_ssize_t n;
    const char *s = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &n) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "strtod takes a str");
        return NULL;
    }
    return PyFloat_FromDouble(godot_strtod_c(s, n));
}

/* The floats of a run (a bytes object of doubles: see number_run) as a list */
static PyObject *run_list(PyObject *run) {
    Py_ssize_t n = PyBytes_GET_SIZE(run) / 8;
    const char *p = PyBytes_AS_STRING(run);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        double x;
        memcpy(&x, p + 8 * i, 8);
        PyObject *f = PyFloat_FromDouble(x);
        if (!f) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, f);
    }
    return out;
}

/* Every run in a tree made a list, in place, before the pure reader sees it: 0 ok, -1 error */
static int unrun(PyObject *node) {
    if (PyList_CheckExact(node)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node); i++) {
            PyObject *item = PyList_GET_ITEM(node, i);
            if (PyBytes_CheckExact(item)) {
                PyObject *list = run_list(item);
                if (!list || PyList_SetItem(node, i, list) < 0) return -1;
            } else if (unrun(item) < 0) {
                return -1;
            }
        }
    } else if (PyDict_CheckExact(node)) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(node, &pos, &k, &v)) { /* new values for present keys: allowed */
            if (PyBytes_CheckExact(v)) {
                PyObject *list = run_list(v);
                int r = list ? PyDict_SetItem(node, k, list) : -1;
                Py_XDECREF(list);
                if (r < 0) return -1;
            } else if (unrun(v) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* The depth of a tree (lists, runs and dicts), stopping past limit */
static int tree_depth(PyObject *node, int limit) {
    if (limit < 0) return 1;
    if (PyBytes_CheckExact(node)) return 1;
    int deepest = 0;
    if (PyList_CheckExact(node)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node) && deepest <= limit; i++) {
            int d = tree_depth(PyList_GET_ITEM(node, i), limit - 1);
            if (d > deepest) deepest = d;
        }
        return deepest + 1;
    }
    if (PyDict_CheckExact(node)) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (deepest <= limit && PyDict_Next(node, &pos, &k, &v)) {
            int d = tree_depth(v, limit - 1);
            if (d > deepest) deepest = d;
        }
        return deepest + 1;
    }
    return 0;
}

/* fallback(*args) when node's subtree keeps within READ_NEST at depth; NULL with no error
 * set when it does not (hand back) */
static PyObject *node_fallback(PyObject *fn, PyObject *node, int depth, PyObject *level) {
    if (depth + tree_depth(node, READ_NEST - depth) > READ_NEST) return NULL;
    if (unrun(node) < 0) return NULL;
    if (level) return PyObject_CallFunctionObjArgs(fn, node, level, NULL);
    return PyObject_CallOneArg(fn, node);
}

static PyObject *items_key, *tag_key, *type_key, *args_key, *float64_key;
static PyObject *key_type_key, *value_type_key;
static PyObject *dictionary_name, *tagged_decoder, *godot_decoder;

typedef struct {
    PyObject *maths, *packed, *fallback;
} TaggedRead;

/* A math value from its args list: 0 ok, 1 not plain (fallback) */
static int math_from(PyObject *spec, PyObject *args, int wide, int godot, PyObject **out) {
    int ints;
    Py_ssize_t size;
    PyObject *build;
    if (!PyArg_ParseTuple(spec, "pnO", &ints, &size, &build)) return -1;
    if (PyBytes_CheckExact(args)) {
        PyObject *list = run_list(args);
        if (!list) return -1;
        int r = math_from(spec, list, wide, godot, out);
        Py_DECREF(list);
        return r;
    }
    if (!PyList_CheckExact(args) || PyList_GET_SIZE(args) != size || (ints && wide)) return 1;
    PyObject *parts = PyList_New(size);
    if (!parts) return -1;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *a = PyList_GET_ITEM(args, i), *c = NULL;
        if (godot) {
            double x;
            if (PyFloat_CheckExact(a)) x = PyFloat_AS_DOUBLE(a);
            else if (a == Py_True || a == Py_False) x = a == Py_True;
            else if (a == Py_None) x = 0.0;
            else { Py_DECREF(parts); return 1; }
            if (ints) {
                long long k = (isfinite(x) && x >= -2147483648.0 && x < 2147483648.0)
                                  ? (long long)x : -2147483648LL;
                c = PyLong_FromLongLong(k);
            } else {
                c = PyFloat_FromDouble((double)(float)x);
            }
        } else if (ints) {
            int overflow;
            long long k = PyLong_CheckExact(a) ? PyLong_AsLongLongAndOverflow(a, &overflow) : 0;
            if (!PyLong_CheckExact(a) || overflow || k < -2147483648LL || k > 2147483647LL) {
                Py_DECREF(parts);
                return 1;
            }
            Py_INCREF(a);
            c = a;
        } else {
            double x;
            if (PyFloat_CheckExact(a)) x = PyFloat_AS_DOUBLE(a);
            else if (PyLong_CheckExact(a)) {
                x = PyLong_AsDouble(a);
                if (x == -1.0 && PyErr_Occurred()) { PyErr_Clear(); Py_DECREF(parts); return 1; }
            } else { Py_DECREF(parts); return 1; }
            c = PyFloat_FromDouble(wide ? x : (double)(float)x);
        }
        if (!c) { Py_DECREF(parts); return -1; }
        PyList_SET_ITEM(parts, i, c);
    }
    *out = PyObject_CallOneArg(build, parts);
    Py_DECREF(parts);
    return *out ? 0 : -1;
}

/* One packed component: 0 ok, 1 not plain. godot: a JSON double, bool or null converted as
 * Variant does; tagged: an exact int in range for "i"/"q", an int or float for "f"/"d". */
static void store_number(double x, char code, char *out);

static int packed_component(PyObject *a, char code, int godot, char *out) {
    double x;
    if (godot) {
        if (PyFloat_CheckExact(a)) x = PyFloat_AS_DOUBLE(a);
        else if (a == Py_True || a == Py_False) x = a == Py_True;
        else if (a == Py_None) x = 0.0;
        else return 1;
        store_number(x, code, out);
        return 0;
    } else if (code == 'i' || code == 'q') {
        int overflow;
        if (!PyLong_CheckExact(a)) return 1;
        long long k = PyLong_AsLongLongAndOverflow(a, &overflow);
        if (overflow || (code == 'i' && (k < INT32_MIN || k > INT32_MAX))) return 1;
        if (code == 'i') {
            int32_t k32 = (int32_t)k;
            memcpy(out, &k32, 4);
        } else {
            int64_t k64 = (int64_t)k;
            memcpy(out, &k64, 8);
        }
        return 0;
    } else if (PyFloat_CheckExact(a)) {
        x = PyFloat_AS_DOUBLE(a);
    } else if (PyLong_CheckExact(a)) {
        x = PyLong_AsDouble(a);
        if (x == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 1; }
    } else {
        return 1;
    }
    store_number(x, code, out);
    return 0;
}

/* A number as a packed component of type code, converted as Variant converts a double */
static void store_number(double x, char code, char *out) {
    if (code == 'i') {
        int32_t k = (isfinite(x) && x >= -2147483648.0 && x < 2147483648.0) ? (int32_t)x
                                                                              : INT32_MIN;
        memcpy(out, &k, 4);
    } else if (code == 'q') {
        int64_t k = (isfinite(x) && x >= -9223372036854775808.0 && x < 9223372036854775808.0)
                        ? (int64_t)x : INT64_MIN;
        memcpy(out, &k, 8);
    } else if (code == 'f') {
        float f = (float)x;
        memcpy(out, &f, 4);
    } else {
        memcpy(out, &x, 8);
    }
}

/* A packed array from its items (tagged: elements, each a list of width components when
 * width > 1) or args (godot: flat components): 0 ok, 1 not plain */
static int packed_from(PyObject *spec, PyObject *items, int godot, PyObject **out) {
    PyObject *cls;
    const char *code;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(spec, "Osn", &cls, &code, &width)) return -1;
    int ints = *code == 'i' || *code == 'q', run = PyBytes_CheckExact(items);
    /* a run holds floats: the tagged form's ints and vectors are not plain there */
    if ((!PyList_CheckExact(items) && !(run && (godot || (width == 1 && !ints)))) || width < 1)
        return 1;
    Py_ssize_t n = run ? PyBytes_GET_SIZE(items) / 8 : PyList_GET_SIZE(items);
    Py_ssize_t size = (*code == 'i' || *code == 'f') ? 4 : 8;
    Py_ssize_t count = godot ? n : n * width;
    if (godot && n % width) return 1;
    if (count > PY_SSIZE_T_MAX / size) return 1;
    PyObject *raw = PyBytes_FromStringAndSize(NULL, count * size);
    if (!raw) return -1;
    char *p = PyBytes_AS_STRING(raw);
    for (Py_ssize_t i = 0; run && i < n; i++, p += size) {
        double x;
        memcpy(&x, PyBytes_AS_STRING(items) + 8 * i, 8);
        store_number(x, *code, p);
    }
    for (Py_ssize_t i = 0; !run && i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        int r = 0;
        if (godot || width == 1) {
            r = packed_component(item, *code, godot, p);
            p += size;
        } else if (PyBytes_CheckExact(item) && PyBytes_GET_SIZE(item) == 8 * width && !ints) {
            for (Py_ssize_t j = 0; j < width; j++, p += size) {
                double x;
                memcpy(&x, PyBytes_AS_STRING(item) + 8 * j, 8);
                store_number(x, *code, p);
            }
        } else if (!PyList_CheckExact(item) || PyList_GET_SIZE(item) != width) {
            r = 1;
        } else {
            for (Py_ssize_t j = 0; j < width && !r; j++, p += size)
                r = packed_component(PyList_GET_ITEM(item, j), *code, godot, p);
        }
        if (r) { Py_DECREF(raw); return r; }
    }
    *out = PyObject_CallMethod(cls, "frombuffer", "O", raw);
    Py_DECREF(raw);
    return *out ? 0 : -1;
}

static PyObject *tagged_read(PyObject *node, int depth, TaggedRead *pl);

/* A {"$type": name, "args": [...], "float64": bool} math record, or the fallback's value */
static PyObject *tagged_record(PyObject *node, PyObject *name, int depth, TaggedRead *pl) {
    PyObject *spec = PyUnicode_CheckExact(name) ? PyDict_GetItemWithError(pl->maths, name) : NULL;
    if (!spec && PyErr_Occurred()) return NULL;
    PyObject *args = PyDict_GetItemWithError(node, args_key);
    if (!args && PyErr_Occurred()) return NULL;
    PyObject *flag = PyDict_GetItemWithError(node, float64_key);
    if (!flag && PyErr_Occurred()) return NULL;
    Py_ssize_t members = 1 + (args != NULL) + (flag != NULL);
    if (spec && args && PyDict_GET_SIZE(node) == members && (!flag || PyBool_Check(flag))) {
        PyObject *out = NULL;
        int r = math_from(spec, args, flag == Py_True, 0, &out);
        if (r <= 0) return r < 0 ? NULL : out;
    }
    PyObject *forms = NULL;
    if (!spec && PyUnicode_CheckExact(name)) forms = PyDict_GetItemWithError(pl->packed, name);
    if (!forms && PyErr_Occurred()) return NULL;
    PyObject *items = forms ? PyDict_GetItemWithError(node, items_key) : NULL;
    if (!items && PyErr_Occurred()) return NULL;
    members = 1 + (items != NULL) + (flag != NULL);
    if (items && PyTuple_Check(forms) && PyTuple_GET_SIZE(forms) == 2 &&
        PyDict_GET_SIZE(node) == members && (!flag || PyBool_Check(flag))) {
        PyObject *form = PyTuple_GET_ITEM(forms, flag == Py_True);
        if (form != Py_None) {
            PyObject *out = NULL;
            int r = packed_from(form, items, 0, &out);
            if (r <= 0) return r < 0 ? NULL : out;
        }
    }
    return node_fallback(pl->fallback, node, depth, NULL);
}

static PyObject *tagged_read(PyObject *node, int depth, TaggedRead *pl) {
    PyTypeObject *t = Py_TYPE(node);
    if (depth > READ_NEST) return NULL;
    if (t == &PyUnicode_Type || t == &PyFloat_Type || t == &PyBool_Type || node == Py_None) {
        Py_INCREF(node);
        return node;
    }
    if (t == &PyLong_Type) {
        int overflow;
        PyLong_AsLongLongAndOverflow(node, &overflow);
        if (overflow) return NULL;
        Py_INCREF(node);
        return node;
    }
    if (t == &PyBytes_Type) return depth + 1 > READ_NEST ? NULL : run_list(node);
    if (t == &PyList_Type) {
        Py_ssize_t n = PyList_GET_SIZE(node);
        PyObject *out = PyList_New(n);
        if (!out) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = tagged_read(PyList_GET_ITEM(node, i), depth + 1, pl);
            if (!v) { Py_DECREF(out); return NULL; }
            PyList_SET_ITEM(out, i, v);
        }
        return out;
    }
    if (t != &PyDict_Type) return NULL;
    PyObject *name = PyDict_GetItemWithError(node, tag_key);
    if (name) return tagged_record(node, name, depth, pl);
    if (PyErr_Occurred()) return NULL;
    PyObject *out = PyDict_New(), *k, *v;
    Py_ssize_t pos = 0;
    if (!out) return NULL;
    while (PyDict_Next(node, &pos, &k, &v)) {
        PyObject *value = tagged_read(v, depth + 1, pl);
        if (!value || PyDict_SetItem(out, k, value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(value);
    }
    return out;
}

/* ---- the plain-text parser: ASCII JSON without escapes, read without the scanner ----------
 *
 * Texts of numbers (a 1M-float packed array) spend most of the scanner's time making a str of
 * each number and calling the number hook; this parser reads an ASCII text with no escape and
 * no control character in its strings straight to the same tree (numbers: Godot's strtod in
 * the Godot dialect, int or float as json.loads gives them in the tagged one; a repeated key
 * in the tagged dialect gives up). It gives up (NULL, no error) on anything else, and the
 * scanner reads the text.
 * A number is read in one pass (scan_number), its digits eight at a time where they can be.
 * An array of numbers only (of float syntax only, in the tagged dialect) becomes a run: a
 * bytes object of the doubles, not a list of floats. The readers take a run where they take a
 * list (a packed array's numbers are stored straight from it, anything else gets the list),
 * and node_fallback makes every run a list before the pure reader sees a node; a JSON tree
 * holds no bytes otherwise. A 1M-float array read in about twice Godot's time before them.
 */
typedef struct {
    const char *p, *end;
    int godot;
} Plain;

static void plain_space(Plain *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static PyObject *plain_value(Plain *ps, int depth);

static PyObject *plain_string(Plain *ps) {
    const char *start = ++ps->p;
    while (ps->p < ps->end && *ps->p != '"') {
        if (*ps->p == '\\' || (unsigned char)*ps->p < 0x20) return NULL;
        ps->p++;
    }
    if (ps->p >= ps->end) return NULL;
    Py_ssize_t n = ps->p - start;
    ps->p++;
    PyObject *out = PyUnicode_New(n, 127);
    if (out) memcpy(PyUnicode_DATA(out), start, (size_t)n);
    return out;
}


static int digit_at(const char *p, const char *end) { return p < end && *p >= '0' && *p <= '9'; }

/* The digits from p into t (head while it has room), eight at a time where they can be: the
 * eight bytes are all digits when each byte's high nibble is 3 and adding 6 keeps it so; the
 * first step makes every byte ten times itself plus the next (two-digit pairs at the even
 * bytes), and two multiplies gather the four pairs by 10^6, 10^4, 100 and 1 into the upper
 * half. Little-endian only (the first digit is the lowest byte). */
static const char *scan_digits(const char *p, const char *end, Token *t) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - p >= 8 && t->size <= 10) {
        uint64_t v;
        memcpy(&v, p, 8);
        if ((v & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL ||
            ((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL)
            break;
        v -= 0x3030303030303030ULL;
        v = v * 10 + (v >> 8);
        v = ((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
             ((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >> 32;
        t->head = t->head * 100000000 + v;
        t->size += 8;
        t->total += 8;
        p += 8;
    }
#endif
    for (; digit_at(p, end); p++, t->total++)
        if (t->size < 18) t->head = t->head * 10 + (uint64_t)(*p - '0'), t->size++;
    return p;
}

/* The end of the JSON number token at p, filling t, or NULL when p has none (or one that runs
 * on into more number characters, which the scanner reads, or refuses, itself) */
static const char *scan_number(const char *p, const char *end, Token *t) {
    if (p >= end) return NULL;
    t->negative = *p == '-';
    t->is_float = t->exp_negative = t->exp_digits = 0;
    t->head = 0;
    t->size = t->total = 0;
    t->point = -1;
    t->exp = 0;
    p += t->negative;
    if (!digit_at(p, end)) return NULL;
    if (*p == '0') {
        p++;
        t->size = t->total = 1;
        if (digit_at(p, end)) return NULL; /* "01" */
    } else {
        p = scan_digits(p, end, t);
    }
    if (p < end && *p == '.') {
        p++;
        t->is_float = 1;
        t->point = t->total;
        if (!digit_at(p, end)) return NULL;
        p = scan_digits(p, end, t);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        t->is_float = 1;
        if (p < end && (*p == '+' || *p == '-')) t->exp_negative = *p++ == '-';
        if (!digit_at(p, end)) return NULL;
        for (; digit_at(p, end); p++, t->exp_digits++)
            if (t->exp < 1000000000000000LL) t->exp = t->exp * 10 + (*p - '0');
    }
    if (p < end && (digit_at(p, end) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
                    *p == '-'))
        return NULL;
    return p;
}


/* The correctly rounded double of a float token when exact arithmetic gives it: its digits
 * (at most 18) make an integer M under 2^53, so a double, and its decimal exponent E is within
 * 22 either way, so 10^|E| is one too; then M * 10^E or M / 10^-E rounds once, correctly, as
 * IEEE arithmetic does (Clinger's fast path). 1 done, 0 not (PyOS_string_to_double reads
 * the text). */
static int fast_decimal(const Token *t, double *out) {
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD == 0
    if (t->total > 18 || t->exp_digits > 4 || t->head >> 53) return 0;
    long long scale = (t->point < 0 ? 0 : t->point - t->total) +
                      (t->exp_negative ? -t->exp : t->exp);
    double x = (double)t->head;
    if (t->head && (scale < -22 || scale > 22)) return 0;
    if (t->head) x = scale < 0 ? x / exact_pow10[-scale] : x * exact_pow10[scale];
    *out = t->negative ? -x : x;
    return 1;
#else
    (void)t, (void)out;
    return 0;
#endif
}

/* The double json.loads gives a float token (at start, n characters): 0 ok, -1 error */
static int tagged_double(const Token *t, const char *start, Py_ssize_t n, double *out) {
    if (fast_decimal(t, out)) return 0;
    char buf[64];
    if (n >= (Py_ssize_t)sizeof buf) return -1;
    memcpy(buf, start, (size_t)n);
    buf[n] = 0;
    *out = PyOS_string_to_double(buf, NULL, NULL);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *plain_number(Plain *ps) {
    Token t;
    const char *start = ps->p, *end = scan_number(ps->p, ps->end, &t);
    if (!end) return NULL;
    ps->p = end;
    if (ps->godot) return PyFloat_FromDouble(godot_token_value(&t));
    if (!t.is_float && t.total <= 18) /* all of its digits are in head */
        return PyLong_FromLongLong(t.negative ? -(long long)t.head : (long long)t.head);
    if (!t.is_float) {
        char buf[64];
        if (end - start >= (Py_ssize_t)sizeof buf) return NULL;
        memcpy(buf, start, (size_t)(end - start));
        buf[end - start] = 0;
        return PyLong_FromString(buf, NULL, 10);
    }
    double x;
    return tagged_double(&t, start, end - start, &x) < 0 ? NULL : PyFloat_FromDouble(x);
}

static PyObject *plain_word(Plain *ps, const char *word, PyObject *value) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return NULL;
    ps->p += n;
    if (ps->p < ps->end && ((*ps->p | 0x20) >= 'a' && (*ps->p | 0x20) <= 'z')) return NULL;
    Py_INCREF(value);
    return value;
}

/* An array of numbers only (of float syntax only, in the tagged dialect), ps->p at its first,
 * as a run: a bytes object of their doubles, which the tree's readers take for the list of
 * those floats, without a float object made for each. NULL, no error and ps->p unmoved, for
 * any other array (the plain parser reads it then), or one whose numbers would be deeper than
 * READ_NEST (as a list's would). */
static PyObject *number_run(Plain *ps, int depth) {
    if (depth + 1 > READ_NEST) return NULL;
    const char *mark = ps->p;
    double *xs = NULL;
    Py_ssize_t n = 0, cap = 0;
    PyObject *out = NULL;
    for (;;) {
        Token t;
        const char *start = ps->p, *end = scan_number(ps->p, ps->end, &t);
        double x;
        if (!end || (!ps->godot && !t.is_float)) break;
        if (ps->godot) x = godot_token_value(&t);
        else if (tagged_double(&t, start, end - start, &x) < 0) break;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            double *grown = cap < PY_SSIZE_T_MAX / 16 ? PyMem_Realloc(xs, (size_t)cap * 8) : NULL;
            if (!grown) break;
            xs = grown;
        }
        xs[n++] = x;
        ps->p = end;
        plain_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            plain_space(ps);
        } else {
            if (ps->p < ps->end && *ps->p == ']') {
                ps->p++;
                out = PyBytes_FromStringAndSize((const char *)xs, n * 8);
            }
            break;
        }
    }
    PyMem_Free(xs);
    if (!out) {
        PyErr_Clear();
        ps->p = mark;
    }
    return out;
}

static PyObject *plain_array(Plain *ps, int depth) {
    ps->p++;
    plain_space(ps);
    if (ps->p < ps->end && (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))) {
        PyObject *run = number_run(ps, depth);
        if (run) return run;
    }
    PyObject *out = PyList_New(0);
    if (out && ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return out;
    }
    while (out) {
        PyObject *v = plain_value(ps, depth + 1);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(v);
        plain_space(ps);
        if (ps->p < ps->end && *ps->p == ',') ps->p++;
        else if (ps->p < ps->end && *ps->p == ']') { ps->p++; break; }
        else Py_CLEAR(out);
    }
    return out;
}

static PyObject *plain_object(Plain *ps, int depth) {
    PyObject *out = PyDict_New();
    ps->p++;
    plain_space(ps);
    if (out && ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return out;
    }
    while (out) {
        plain_space(ps);
        PyObject *k = ps->p < ps->end && *ps->p == '"' ? plain_string(ps) : NULL, *v = NULL;
        plain_space(ps);
        if (k && ps->p < ps->end && *ps->p == ':') {
            ps->p++;
            v = plain_value(ps, depth + 1);
        }
        int ok = v && (ps->godot || !PyDict_Contains(out, k)) && PyDict_SetItem(out, k, v) == 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (!ok) { Py_CLEAR(out); break; }
        plain_space(ps);
        if (ps->p < ps->end && *ps->p == ',') ps->p++;
        else if (ps->p < ps->end && *ps->p == '}') { ps->p++; break; }
        else Py_CLEAR(out);
    }
    return out;
}

static PyObject *plain_value(Plain *ps, int depth) {
    if (depth > READ_NEST) return NULL;
    plain_space(ps);
    if (ps->p >= ps->end) return NULL;
    char c = *ps->p;
    if (c == '{') return plain_object(ps, depth);
    if (c == '[') return plain_array(ps, depth);
    if (c == '"') return plain_string(ps);
    if (c == '-' || (c >= '0' && c <= '9')) return plain_number(ps);
    if (c == 't') return plain_word(ps, "true", Py_True);
    if (c == 'f') return plain_word(ps, "false", Py_False);
    if (c == 'n') return plain_word(ps, "null", Py_None);
    return NULL;
}

/* The tree of an ASCII text the plain parser reads whole, or NULL (no error set) */
static PyObject *plain_tree(PyObject *text, int godot) {
    if (!PyUnicode_IS_ASCII(text)) return NULL;
    const char *data = PyUnicode_DATA(text);
    Plain ps = {data, data + PyUnicode_GET_LENGTH(text), godot};
    PyObject *tree = plain_value(&ps, 0);
    if (tree) {
        plain_space(&ps);
        if (ps.p != ps.end) Py_CLEAR(tree);
    }
    if (!tree) PyErr_Clear();
    return tree;
}

/* The decoder's tree of text, or NULL (no error set) to hand back */
static PyObject *decode(PyObject *decoder, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "the JSON text must be a str");
        return NULL;
    }
    PyObject *tree = PyObject_CallMethod(decoder, "decode", "O", text);
    if (!tree) PyErr_Clear();
    return tree;
}

/* value, or NotImplemented after any error in the C path (the pure reader gives its own) */
static PyObject *value_or_handback(PyObject *value) {
    if (value) return value;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *json_read_tagged(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *text, *plan;
    TaggedRead pl;
    if (!PyArg_ParseTuple(args, "UO!:read_tagged", &text, &PyTuple_Type, &plan)) return NULL;
    if (!PyArg_ParseTuple(plan, "O!O!O:plan", &PyDict_Type, &pl.maths, &PyDict_Type, &pl.packed,
                          &pl.fallback))
        return NULL;
    int collecting = PyGC_Disable();
    PyObject *tree = plain_tree(text, 0);
    if (!tree) tree = decode(tagged_decoder, text);
    PyObject *value = tree ? tagged_read(tree, 0, &pl) : NULL;
    Py_XDECREF(tree);
    if (collecting) PyGC_Enable();
    if (!tree) Py_RETURN_NOTIMPLEMENTED;
    return value_or_handback(value);
}

typedef struct {
    PyObject *maths, *packed, *sname, *npath, *fallback;
} GodotRead;

static PyObject *godot_read(PyObject *node, int level, GodotRead *pl);

static PyObject *godot_fallback(PyObject *node, int level, GodotRead *pl) {
    PyObject *lv = PyLong_FromLong(level);
    if (!lv) return NULL;
    PyObject *out = node_fallback(pl->fallback, node, level, lv);
    Py_DECREF(lv);
    return out;
}

/* String::to_int of "i:"'s text, as gdvariant._json.godot._to_int */
static PyObject *godot_to_int(PyObject *s, Py_ssize_t from) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    unsigned long long number = 0;
    int negative = 0;
    for (Py_ssize_t i = from; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= '0' && c <= '9') {
            unsigned long long limit = 9223372036854775807ULL + (unsigned long long)negative;
            unsigned d = (unsigned)(c - '0');
            if (number > (limit - d) / 10)
                return negative ? PyLong_FromLongLong(INT64_MIN) : PyLong_FromLongLong(INT64_MAX);
            number = number * 10 + d;
        } else if (c == '-' && number == 0) {
            negative = !negative;
        }
    }
    if (negative) return number == 0 ? PyLong_FromLong(0)
                                     : PyLong_FromLongLong((long long)(0 - number));
    return PyLong_FromUnsignedLongLong(number);
}

/* "f:"'s number when the text after the prefix is exactly an ASCII number token
 * [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?; NULL, no error, otherwise */
static PyObject *godot_to_float(PyObject *s, Py_ssize_t from) {
    if (!PyUnicode_IS_ASCII(s)) return NULL;
    const char *p = (const char *)PyUnicode_DATA(s) + from;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s) - from, i = 0;
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    Py_ssize_t lead = 0, frac = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++, lead++;
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && p[i] >= '0' && p[i] <= '9') i++, frac++;
    }
    if (lead == 0 && frac == 0) return NULL;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-')) i++;
        Py_ssize_t e = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9') i++, e++;
        if (e == 0) return NULL;
    }
    if (i != n) return NULL;
    return PyFloat_FromDouble(godot_strtod_c(p, n));
}

static PyObject *godot_string(PyObject *node, int level, GodotRead *pl) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(node);
    Py_UCS4 c0 = n > 0 ? PyUnicode_READ_CHAR(node, 0) : 0;
    Py_UCS4 c1 = n > 1 ? PyUnicode_READ_CHAR(node, 1) : 0;
    Py_UCS4 c2 = n > 2 ? PyUnicode_READ_CHAR(node, 2) : 0;
    if (c1 == ':') {
        if (c0 == 'i') return godot_to_int(node, 2);
        if (c0 == 's') return PyUnicode_Substring(node, 2, n);
        if (c0 == 'f') {
            PyObject *x = godot_to_float(node, 2);
            if (x || PyErr_Occurred()) return x;
        }
    } else if (c2 == ':' && (c0 == 's' || c0 == 'n') && c1 == (c0 == 's' ? 'n' : 'p')) {
        PyObject *sub = PyUnicode_Substring(node, 3, n);
        if (!sub) return NULL;
        PyObject *out = PyObject_CallOneArg(c0 == 's' ? pl->sname : pl->npath, sub);
        Py_DECREF(sub);
        return out;
    }
    return godot_fallback(node, level, pl);
}

static PyObject *godot_items(PyObject *list, int level, GodotRead *pl) {
    Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = godot_read(PyList_GET_ITEM(list, i), level + 1, pl);
        if (!v) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* An untyped Dictionary whose keys all read as exact str; NULL, no error, otherwise */
static PyObject *godot_dictionary(PyObject *args, int level, GodotRead *pl) {
    Py_ssize_t n = PyList_GET_SIZE(args);
    if (n % 2) return NULL;
    PyObject *items = godot_items(args, level, pl);
    if (!items) return NULL;
    PyObject *out = PyDict_New();
    for (Py_ssize_t i = 0; out && i < n; i += 2) {
        PyObject *k = PyList_GET_ITEM(items, i);
        if (!PyUnicode_CheckExact(k) || PyDict_SetItem(out, k, PyList_GET_ITEM(items, i + 1)) < 0)
            Py_CLEAR(out);
    }
    Py_DECREF(items);
    return out;
}

static PyObject *godot_typed(PyObject *node, int level, GodotRead *pl) {
    PyObject *name = PyDict_GetItemWithError(node, type_key);
    if (!name && PyErr_Occurred()) return NULL;
    PyObject *args = PyDict_GetItemWithError(node, args_key);
    if (!args && PyErr_Occurred()) return NULL;
    if (name && PyUnicode_CheckExact(name) && args &&
        (PyList_CheckExact(args) || PyBytes_CheckExact(args))) {
        PyObject *spec = PyDict_GetItemWithError(pl->maths, name);
        if (!spec && PyErr_Occurred()) return NULL;
        PyObject *form = spec ? NULL : PyDict_GetItemWithError(pl->packed, name);
        if (!spec && !form && PyErr_Occurred()) return NULL;
        if (spec) {
            PyObject *out = NULL;
            int r = math_from(spec, args, 0, 1, &out);
            if (r <= 0) return r < 0 ? NULL : out;
        } else if (form) {
            PyObject *out = NULL;
            int r = packed_from(form, args, 1, &out);
            if (r <= 0) return r < 0 ? NULL : out;
        } else if (PyList_CheckExact(args) && PyUnicode_Compare(name, dictionary_name) == 0 &&
                   !PyDict_Contains(node, key_type_key) && !PyDict_Contains(node, value_type_key)) {
            PyObject *out = godot_dictionary(args, level, pl);
            if (out || PyErr_Occurred()) return out;
        }
    }
    return godot_fallback(node, level, pl);
}

static PyObject *godot_read(PyObject *node, int level, GodotRead *pl) {
    PyTypeObject *t = Py_TYPE(node);
    if (level > READ_NEST) return NULL;
    if (t == &PyBool_Type || node == Py_None) {
        Py_INCREF(node);
        return node;
    }
    if (t == &PyUnicode_Type) return godot_string(node, level, pl);
    if (t == &PyList_Type) return godot_items(node, level, pl);
    if (t == &PyDict_Type) return godot_typed(node, level, pl);
    if (t == &PyBytes_Type) {
        PyObject *list = run_list(node), *out = list ? godot_items(list, level, pl) : NULL;
        Py_XDECREF(list);
        return out;
    }
    return godot_fallback(node, level, pl);
}

/* Whether text has a \u escape of a surrogate (Godot's reader refuses a lone one; the
 * scanner takes it), or a NUL (Godot's text ends there): then the pure reader reads it */
static int godot_unusual(PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (kind == PyUnicode_1BYTE_KIND) { /* the common case, with memchr */
        const char *p = data, *end = p + n;
        if (memchr(p, 0, (size_t)n)) return 1;
        while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
            if (end - p > 2 && p[1] == 'u' && (p[2] == 'd' || p[2] == 'D')) return 1;
            p++;
        }
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == 0) return 1;
        if (c == '\\' && i + 2 < n && PyUnicode_READ(kind, data, i + 1) == 'u') {
            Py_UCS4 d = PyUnicode_READ(kind, data, i + 2);
            if (d == 'd' || d == 'D') return 1;
        }
    }
    return 0;
}

static PyObject *json_read_godot(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *text, *plan;
    GodotRead pl;
    if (!PyArg_ParseTuple(args, "UO!:read_godot", &text, &PyTuple_Type, &plan)) return NULL;
    if (!PyArg_ParseTuple(plan, "O!O!OOO:plan", &PyDict_Type, &pl.maths, &PyDict_Type,
                          &pl.packed, &pl.sname, &pl.npath, &pl.fallback))
        return NULL;
    int collecting = PyGC_Disable();
    PyObject *tree = plain_tree(text, 1);
    if (!tree && !godot_unusual(text)) tree = decode(godot_decoder, text);
    PyObject *value = tree ? godot_read(tree, 0, &pl) : NULL;
    Py_XDECREF(tree);
    if (collecting) PyGC_Enable();
    if (!tree) Py_RETURN_NOTIMPLEMENTED;
    return value_or_handback(value);
}

static PyObject *json_refuse(PyObject *self, PyObject *name) {
    (void)self;
    PyErr_Format(PyExc_ValueError, "%R is not read by the compiled reader", name);
    return NULL;
}

/* json.JSONDecoder(parse_constant=refuse, <hook>=module.<fn>), with parse_int too for strtod */
static PyObject *make_decoder(PyObject *m, const char *hook, const char *fn) {
    PyObject *json = PyImport_ImportModule("json");
    PyObject *cls = json ? PyObject_GetAttrString(json, "JSONDecoder") : NULL;
    Py_XDECREF(json);
    PyObject *f = cls ? PyObject_GetAttrString(m, fn) : NULL;
    PyObject *refuse = f ? PyObject_GetAttrString(m, "refuse") : NULL;
    PyObject *kw = refuse ? PyDict_New() : NULL;
    PyObject *out = NULL;
    if (kw && PyDict_SetItemString(kw, hook, f) == 0 &&
        PyDict_SetItemString(kw, "parse_constant", refuse) == 0 &&
        (strcmp(fn, "strtod") != 0 || PyDict_SetItemString(kw, "parse_int", f) == 0)) {
        PyObject *empty = PyTuple_New(0);
        if (empty) out = PyObject_Call(cls, empty, kw);
        Py_XDECREF(empty);
    }
    Py_XDECREF(kw);
    Py_XDECREF(refuse);
    Py_XDECREF(f);
    Py_XDECREF(cls);
    return out;
}

static PyMethodDef methods[] = {
    {"write", json_write, METH_VARARGS, "write(value, plan, fallback) -> str or NotImplemented"},
    {"write_tagged", json_write_tagged, METH_VARARGS,
     "write_tagged(value, plan, fallback) -> str or NotImplemented"},
    {"read_tagged", json_read_tagged, METH_VARARGS,
     "read_tagged(text, plan) -> the value of tagged JSON text, or NotImplemented"},
    {"read_godot", json_read_godot, METH_VARARGS,
     "read_godot(text, plan) -> the value of Godot-dialect JSON text, or NotImplemented"},
    {"pairs", json_pairs, METH_O, "object_pairs_hook: a dict; a repeated key raises"},
    {"strtod", json_strtod, METH_O, "Godot's built_in_strtod of a JSON number token"},
    {"refuse", json_refuse, METH_O, "parse_constant: NaN and Infinity are not read here"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._json._cjson", "The compiled JSON writers.", -1,
    methods,
};

PyMODINIT_FUNC PyInit__cjson(void) {
    struct { PyObject **slot; const char *text; } names[] = {
        {&items_key, "items"}, {&tag_key, "$type"}, {&type_key, "type"}, {&args_key, "args"},
        {&float64_key, "float64"}, {&key_type_key, "key_type"},
        {&value_type_key, "value_type"}, {&dictionary_name, "Dictionary"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].text)))
            return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (!tagged_decoder) {
        tagged_decoder = make_decoder(m, "object_pairs_hook", "pairs");
        if (!tagged_decoder) { Py_DECREF(m); return NULL; }
    }
    if (!godot_decoder) {
        godot_decoder = make_decoder(m, "parse_float", "strtod");
        if (!godot_decoder) { Py_DECREF(m); return NULL; }
    }
    return m;
}
