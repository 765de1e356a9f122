/* The compiled twin of gdvariant._text._pytext: Godot 4.5+'s var_to_str and str_to_var in C
 * (the reader is further down, with its own comment).
 *
 * write(value, plan, fallback) -> str writes the values a save is made of (None, bool, int,
 * float, str, StringName, exact list/tuple/dict with all-str or all-int keys, the math types
 * and the packed arrays named in the plan) and hands every other value, with its depth, to
 * fallback(value, depth): the pure writer's own method, which also raises every error. The
 * text is the pure writer's, character for character (tests/text/test_core.py compares them).
 * The plan comes from gdvariant._text.writer.compiled_plan:
 *   (max_depth, empty_dict, maths, packed, byte_array_name, string_array_name, StringName,
 *    PackedStringArray)
 * maths:  {class: (name, kind, flatten or None)}  kind 0 = int components, 1 = float32
 * packed: {class: (name, typecode)}                typecode "i", "q", "f" or "d" (little-endian data)
 * Floats print with Grisu2 digits (float32 boundaries for a float32 value), as _floats.grisu2_text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- output buffer ----------------------------------------------------------------------
 * One byte a character (Latin-1) until a wider character comes, then four (UCS4). */

typedef struct {
    void *p;
    Py_ssize_t n, cap;
    int wide;
} Buf;

static int grow(Buf *b, Py_ssize_t extra) {
    if (b->n + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) {
        if (cap > PY_SSIZE_T_MAX / 8) { PyErr_NoMemory(); return -1; }
        cap *= 2;
    }
    void *p = PyMem_Realloc(b->p, (size_t)cap * (b->wide ? 4 : 1));
    if (!p) { PyErr_NoMemory(); return -1; }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int widen(Buf *b) {
    Py_UCS4 *p = PyMem_Malloc((size_t)(b->cap ? b->cap : 1) * 4);
    if (!p) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < b->n; i++) p[i] = ((Py_UCS1 *)b->p)[i];
    PyMem_Free(b->p);
    b->p = p;
    b->wide = 1;
    return 0;
}

/* One character; room for it was made by grow */
static inline void put1(Buf *b, Py_UCS4 c) {
    if (b->wide) ((Py_UCS4 *)b->p)[b->n++] = c;
    else ((Py_UCS1 *)b->p)[b->n++] = (Py_UCS1)c;
}

static int put_ascii(Buf *b, const char *s, Py_ssize_t len) {
    if (grow(b, len) < 0) return -1;
    if (!b->wide) {
        memcpy((char *)b->p + b->n, s, (size_t)len);
        b->n += len;
        return 0;
    }
    for (Py_ssize_t i = 0; i < len; i++) put1(b, (unsigned char)s[i]);
    return 0;
}

static int put_cstr(Buf *b, const char *s) { return put_ascii(b, s, (Py_ssize_t)strlen(s)); }

enum { RAW, QUOTES, FULL };

/* The characters of str s: as they are (RAW), with \ and " escaped (QUOTES), or with the
 * whole table of the pure writer's _ESCAPE (FULL, Godot's c_escape) */
static int put_str(Buf *b, PyObject *s, int mode) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (grow(b, 2 * len) < 0) return -1;
    if (kind != PyUnicode_1BYTE_KIND && !b->wide && PyUnicode_MAX_CHAR_VALUE(s) > 255 && widen(b) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        char e = 0;
        if (mode == RAW) e = 0;
        else if (c == '\\') e = '\\';
        else if (c == '"') e = '"';
        else if (mode == FULL && c < 128) {
            switch (c) {
            case '\a': e = 'a'; break;
            case '\b': e = 'b'; break;
            case '\f': e = 'f'; break;
            case '\n': e = 'n'; break;
            case '\r': e = 'r'; break;
            case '\t': e = 't'; break;
            case '\v': e = 'v'; break;
            case '\'': e = '\''; break;
            default: break;
            }
        }
        if (e) {
            put1(b, '\\');
            put1(b, (Py_UCS4)e);
        } else {
            put1(b, c);
        }
    }
    return 0;
}

static int put_obj_str(Buf *b, PyObject *o) {
    PyObject *s = PyObject_Str(o);
    if (!s) return -1;
    int r = put_str(b, s, RAW);
    Py_DECREF(s);
    return r;
}

/* ---- Grisu2 (as gdvariant._floats) -------------------------------------------------------- */

/* 10^k for k = -300, -292, ..., 324 as a normalized 64-bit significand (rounded to nearest)
 * and binary exponent: gdvariant._floats._CACHED, written out (tests/text/test_core.py checks it) */
static const uint64_t POWERS_F[79] = {
    UINT64_C(0xab70fe17c79ac6ca), UINT64_C(0xff77b1fcbebcdc4f), UINT64_C(0xbe5691ef416bd60c),
    UINT64_C(0x8dd01fad907ffc3c), UINT64_C(0xd3515c2831559a83), UINT64_C(0x9d71ac8fada6c9b5),
    UINT64_C(0xea9c227723ee8bcb), UINT64_C(0xaecc49914078536d), UINT64_C(0x823c12795db6ce57),
    UINT64_C(0xc21094364dfb5637), UINT64_C(0x9096ea6f3848984f), UINT64_C(0xd77485cb25823ac7),
    UINT64_C(0xa086cfcd97bf97f4), UINT64_C(0xef340a98172aace5), UINT64_C(0xb23867fb2a35b28e),
    UINT64_C(0x84c8d4dfd2c63f3b), UINT64_C(0xc5dd44271ad3cdba), UINT64_C(0x936b9fcebb25c996),
    UINT64_C(0xdbac6c247d62a584), UINT64_C(0xa3ab66580d5fdaf6), UINT64_C(0xf3e2f893dec3f126),
    UINT64_C(0xb5b5ada8aaff80b8), UINT64_C(0x87625f056c7c4a8b), UINT64_C(0xc9bcff6034c13053),
    UINT64_C(0x964e858c91ba2655), UINT64_C(0xdff9772470297ebd), UINT64_C(0xa6dfbd9fb8e5b88f),
    UINT64_C(0xf8a95fcf88747d94), UINT64_C(0xb94470938fa89bcf), UINT64_C(0x8a08f0f8bf0f156b),
    UINT64_C(0xcdb02555653131b6), UINT64_C(0x993fe2c6d07b7fac), UINT64_C(0xe45c10c42a2b3b06),
    UINT64_C(0xaa242499697392d3), UINT64_C(0xfd87b5f28300ca0e), UINT64_C(0xbce5086492111aeb),
    UINT64_C(0x8cbccc096f5088cc), UINT64_C(0xd1b71758e219652c), UINT64_C(0x9c40000000000000),
    UINT64_C(0xe8d4a51000000000), UINT64_C(0xad78ebc5ac620000), UINT64_C(0x813f3978f8940984),
    UINT64_C(0xc097ce7bc90715b3), UINT64_C(0x8f7e32ce7bea5c70), UINT64_C(0xd5d238a4abe98068),
    UINT64_C(0x9f4f2726179a2245), UINT64_C(0xed63a231d4c4fb27), UINT64_C(0xb0de65388cc8ada8),
    UINT64_C(0x83c7088e1aab65db), UINT64_C(0xc45d1df942711d9a), UINT64_C(0x924d692ca61be758),
    UINT64_C(0xda01ee641a708dea), UINT64_C(0xa26da3999aef774a), UINT64_C(0xf209787bb47d6b85),
    UINT64_C(0xb454e4a179dd1877), UINT64_C(0x865b86925b9bc5c2), UINT64_C(0xc83553c5c8965d3d),
    UINT64_C(0x952ab45cfa97a0b3), UINT64_C(0xde469fbd99a05fe3), UINT64_C(0xa59bc234db398c25),
    UINT64_C(0xf6c69a72a3989f5c), UINT64_C(0xb7dcbf5354e9bece), UINT64_C(0x88fcf317f22241e2),
    UINT64_C(0xcc20ce9bd35c78a5), UINT64_C(0x98165af37b2153df), UINT64_C(0xe2a0b5dc971f303a),
    UINT64_C(0xa8d9d1535ce3b396), UINT64_C(0xfb9b7cd9a4a7443c), UINT64_C(0xbb764c4ca7a44410),
    UINT64_C(0x8bab8eefb6409c1a), UINT64_C(0xd01fef10a657842c), UINT64_C(0x9b10a4e5e9913129),
    UINT64_C(0xe7109bfba19c0c9d), UINT64_C(0xac2820d9623bf429), UINT64_C(0x80444b5e7aa7cf85),
    UINT64_C(0xbf21e44003acdd2d), UINT64_C(0x8e679c2f5e44ff8f), UINT64_C(0xd433179d9c8cb841),
    UINT64_C(0x9e19db92b4e31ba9),
};
static const int POWERS_E[79] = {
    -1060, -1034, -1007, -980, -954, -927, -901, -874, -847, -821, -794, -768, -741,
    -715, -688, -661, -635, -608, -582, -555, -529, -502, -475, -449, -422, -396,
    -369, -343, -316, -289, -263, -236, -210, -183, -157, -130, -103, -77, -50,
    -24, 3, 30, 56, 83, 109, 136, 162, 189, 216, 242, 269, 295,
    322, 348, 375, 402, 428, 455, 481, 508, 534, 561, 588, 614, 641,
    667, 694, 720, 747, 774, 800, 827, 853, 880, 907, 933, 960, 986,
    1013,
};

#define MIN_DEC_EXP (-300)
#define DEC_STEP 8
#define ALPHA (-60)

static int bitlen(uint64_t f) {
    int n = 0;
    for (; f; f >>= 1) n++;
    return n;
}

static void normalize(uint64_t *f, int *e) {
    int shift = 64 - bitlen(*f);
    *f <<= shift;
    *e -= shift;
}

static uint64_t mul_hi(uint64_t x, uint64_t y) {
    /* the upper half of the 128-bit product, rounded (+2^63), from 32-bit halves */
    uint64_t a = x >> 32, b = x & 0xFFFFFFFFu, c = y >> 32, d = y & 0xFFFFFFFFu;
    uint64_t ac = a * c, bc = b * c, ad = a * d, bd = b * d;
    uint64_t mid = (bd >> 32) + (ad & 0xFFFFFFFFu) + (bc & 0xFFFFFFFFu) + (UINT64_C(1) << 31);
    return ac + (ad >> 32) + (bc >> 32) + (mid >> 32);
}

/* Digits of a finite positive value into out (no terminator), their count; *exp10 set. */
static int grisu2_digits(double value, int single, char *out, int *exp10) {
    uint64_t bits, frac, f;
    int precision, bias, biased_e, e;
    if (single) {
        float x = (float)value;
        uint32_t b32;
        memcpy(&b32, &x, 4);
        bits = b32;
        precision = 24;
        bias = 127 + 23;
        biased_e = (int)(bits >> 23);
        frac = bits & ((1u << 23) - 1);
    } else {
        memcpy(&bits, &value, 8);
        precision = 53;
        bias = 1023 + 52;
        biased_e = (int)(bits >> 52);
        frac = bits & ((UINT64_C(1) << 52) - 1);
    }
    if (biased_e == 0) { f = frac; e = 1 - bias; }
    else { f = frac + (UINT64_C(1) << (precision - 1)); e = biased_e - bias; }
    int closer = frac == 0 && biased_e > 1;
    uint64_t pf = 2 * f + 1;
    int pe = e - 1;
    normalize(&pf, &pe);
    uint64_t mf;
    int me;
    if (closer) { mf = 4 * f - 1; me = e - 2; }
    else { mf = 2 * f - 1; me = e - 1; }
    mf <<= (me - pe);
    uint64_t vf = f;
    int ve = e;
    normalize(&vf, &ve);
    (void)ve;

    int fx = ALPHA - pe - 1;
    long long kk = llabs((long long)fx * 78913) >> 18;
    int k = (int)((fx < 0 ? -kk : kk) + (fx > 0 ? 1 : 0));
    int num = -MIN_DEC_EXP + k + (DEC_STEP - 1);
    int index = num >= 0 ? num / DEC_STEP : -((-num + DEC_STEP - 1) / DEC_STEP);
    uint64_t cf = POWERS_F[index];
    int ce = POWERS_E[index];
    int cached_k = MIN_DEC_EXP + index * DEC_STEP;
    /* all in 64 bits: no step below overflows (Grisu's own bounds; delta, dist < 2^60 in
     * the fraction loop, rest + ten_k <= delta where it is computed) */
    uint64_t wf = mul_hi(vf, cf);
    uint64_t lo = mul_hi(mf, cf) + 1;
    uint64_t hi = mul_hi(pf, cf);
    int hi_e = pe + ce + 64;
    hi -= 1;
    int exponent = -cached_k;
    uint64_t delta = hi - lo, dist = hi - wf;
    int shift = -hi_e;
    uint64_t one = UINT64_C(1) << shift;
    uint64_t p1 = hi >> shift; /* below 2^32: shift is at least 32 */
    uint64_t p2 = hi & (one - 1);
    int n = 0;
    uint64_t pow10 = 1;
    for (uint64_t t = p1; t >= 10; t /= 10) { n++; pow10 *= 10; }
    n++;
    int count = 0;
    uint64_t rest = 0, ten_k = 0;
    int done = 0;
    while (n > 0) {
        uint64_t d = p1 / pow10;
        p1 %= pow10;
        out[count++] = (char)('0' + (int)d);
        n--;
        rest = (p1 << shift) + p2;
        if (rest <= delta) {
            exponent += n;
            ten_k = pow10 << shift;
            done = 1;
            break;
        }
        pow10 /= 10;
    }
    if (!done) {
        int m = 0;
        for (;;) {
            p2 *= 10;
            out[count++] = (char)('0' + (int)(p2 >> shift));
            p2 &= one - 1;
            m++;
            delta *= 10;
            dist *= 10;
            if (p2 <= delta) break;
        }
        exponent -= m;
        rest = p2;
        ten_k = one;
    }
    while (rest < dist && delta - rest >= ten_k &&
           (rest + ten_k < dist || dist - rest > rest + ten_k - dist)) {
        out[count - 1]--;
        rest += ten_k;
    }
    *exp10 = exponent;
    return count;
}

/* grisu2_text(value, single) for a finite nonzero value, into out (NUL-terminated). */
static void grisu2_text(double value, int single, char *out) {
    char digits[40];
    int exp10;
    char *o = out;
    if (value < 0) { *o++ = '-'; value = -value; }
    int k = grisu2_digits(value, single, digits, &exp10);
    int n = k + exp10;
    if (k <= n && n <= 15) {
        memcpy(o, digits, k); o += k;
        for (int i = k; i < n; i++) *o++ = '0';
    } else if (0 < n && n <= 15) {
        memcpy(o, digits, n); o += n;
        *o++ = '.';
        memcpy(o, digits + n, k - n); o += k - n;
    } else if (-4 < n && n <= 0) {
        *o++ = '0'; *o++ = '.';
        for (int i = 0; i < -n; i++) *o++ = '0';
        memcpy(o, digits, k); o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) { *o++ = '.'; memcpy(o, digits + 1, k - 1); o += k - 1; }
        int x = n - 1;
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        o += sprintf(o, "%02d", x < 0 ? -x : x);
    }
    *o = 0;
}

/* _Writer.real in the default mode: component=1 narrows to float32 first. */
static void real_text(double value, int component, char *out) {
    if (component) value = (double)(float)value;
    if (value == 0) { strcpy(out, "0"); return; }
    if (isnan(value)) { strcpy(out, "nan"); return; }
    if (isinf(value)) { strcpy(out, value < 0 ? "inf_neg" : "inf"); return; }
    grisu2_text(value, (double)(float)value == value, out);
}

static int put_float(Buf *b, double value) {
    char text[64];
    real_text(value, 0, text);
    if (put_cstr(b, text) < 0) return -1;
    if (strcmp(text, "inf") && strcmp(text, "nan") && !strpbrk(text, ".eE"))
        return put_ascii(b, ".0", 2);
    return 0;
}

/* ---- the writer ------------------------------------------------------------------------- */

typedef struct {
    long max_depth;
    PyObject *empty_dict, *maths, *packed, *byte_name, *string_name, *fallback, *sname_type;
    PyObject *packed_strings_type;
} Plan;

static int write_value(Buf *b, PyObject *v, long depth, Plan *pl);

static int fallback(Buf *b, PyObject *v, long depth, Plan *pl) {
    PyObject *d = PyLong_FromLong(depth);
    if (!d) return -1;
    PyObject *text = PyObject_CallFunctionObjArgs(pl->fallback, v, d, NULL);
    Py_DECREF(d);
    if (!text) return -1;
    if (!PyUnicode_Check(text)) {
        Py_DECREF(text);
        PyErr_SetString(PyExc_TypeError, "the text writer's fallback gave no str");
        return -1;
    }
    int r = put_str(b, text, RAW);
    Py_DECREF(text);
    return r;
}

static int put_component(Buf *b, PyObject *c, int kind) {
    if (kind == 0) return put_obj_str(b, c);
    char text[64];
    real_text(PyFloat_AS_DOUBLE(c), kind == 1, text);
    return put_cstr(b, text);
}

/* name(c, c, ...) of a math value; 1 when its components are not plain (fallback instead) */
static int write_math(Buf *b, PyObject *v, PyObject *spec) {
    PyObject *name = PyTuple_GET_ITEM(spec, 0), *flatten = PyTuple_GET_ITEM(spec, 2);
    int kind = (int)PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    PyObject *flat = flatten == Py_None ? (Py_INCREF(v), v) : PyObject_CallOneArg(flatten, v);
    if (!flat) return -1;
    if (!PyTuple_Check(flat)) { Py_DECREF(flat); return 1; }
    Py_ssize_t n = PyTuple_GET_SIZE(flat);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyTuple_GET_ITEM(flat, i);
        if (kind == 0 ? !PyLong_CheckExact(c) : !PyFloat_CheckExact(c)) { Py_DECREF(flat); return 1; }
    }
    int r = put_str(b, name, RAW);
    r = r < 0 ? r : put_ascii(b, n ? "(" : "()", n ? 1 : 2);
    for (Py_ssize_t i = 0; i < n && r >= 0; i++) {
        if (i) r = put_ascii(b, ", ", 2);
        if (r >= 0) r = put_component(b, PyTuple_GET_ITEM(flat, i), kind);
    }
    if (r >= 0 && n) r = put_ascii(b, ")", 1);
    Py_DECREF(flat);
    return r;
}

static int write_packed(Buf *b, PyObject *v, PyObject *spec) {
    PyObject *name = PyTuple_GET_ITEM(spec, 0);
    const char *code = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 1));
    if (!code) return -1;
    const char *data = PyBytes_AS_STRING(v);
    Py_ssize_t size = PyBytes_GET_SIZE(v);
    int width = (*code == 'i' || *code == 'f') ? 4 : 8;
    Py_ssize_t n = size / width;
    if (put_str(b, name, RAW) < 0) return -1;
    if (n == 0) return put_ascii(b, "()", 2);
    if (put_ascii(b, "(", 1) < 0) return -1;
    char text[64];
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *at = data + i * width;
        if (*code == 'i') { int32_t x; memcpy(&x, at, 4); sprintf(text, "%ld", (long)x); }
        else if (*code == 'q') { int64_t x; memcpy(&x, at, 8); sprintf(text, "%lld", (long long)x); }
        else if (*code == 'f') { float x; memcpy(&x, at, 4); real_text((double)x, 1, text); }
        else { double x; memcpy(&x, at, 8); real_text(x, 0, text); }
        if (i && put_ascii(b, ", ", 2) < 0) return -1;
        if (put_cstr(b, text) < 0) return -1;
    }
    return put_ascii(b, ")", 1);
}

static int write_bytes(Buf *b, PyObject *v, PyObject *name) {
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(v);
    Py_ssize_t n = PyBytes_GET_SIZE(v);
    if (put_str(b, name, RAW) < 0) return -1;
    if (n == 0) return put_ascii(b, "()", 2);
    if (put_ascii(b, "(", 1) < 0) return -1;
    char text[8];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i && put_ascii(b, ", ", 2) < 0) return -1;
        if (put_ascii(b, text, sprintf(text, "%u", data[i])) < 0) return -1;
    }
    return put_ascii(b, ")", 1);
}

static int write_strings(Buf *b, PyObject *v, PyObject *name) {
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    if (put_str(b, name, RAW) < 0) return -1;
    if (n == 0) return put_ascii(b, "()", 2);
    if (put_ascii(b, "(", 1) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i && put_ascii(b, ", ", 2) < 0) return -1;
        if (put_ascii(b, "\"", 1) < 0 || put_str(b, PyTuple_GET_ITEM(v, i), FULL) < 0) return -1;
        if (put_ascii(b, "\"", 1) < 0) return -1;
    }
    return put_ascii(b, ")", 1);
}

static int write_array(Buf *b, PyObject *v, long depth, Plan *pl) {
    if (depth > pl->max_depth) return put_ascii(b, "[]", 2);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
    if (n == 0) return put_ascii(b, "[]", 2);
    if (put_ascii(b, "[", 1) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i && put_ascii(b, ", ", 2) < 0) return -1;
        /* a list may change under a fallback call: read it afresh each time */
        if (i >= PySequence_Fast_GET_SIZE(v)) break;
        PyObject *item = PySequence_Fast_GET_ITEM(v, i);
        Py_INCREF(item);
        int r = write_value(b, item, depth + 1, pl);
        Py_DECREF(item);
        if (r < 0) return -1;
    }
    return put_ascii(b, "]", 1);
}

typedef struct {
    PyObject *key, *value;
} Pair;

static int str_order(const void *a, const void *b) {
    return PyUnicode_Compare(((const Pair *)a)->key, ((const Pair *)b)->key);
}

static int int_order(const void *a, const void *b) {
    PyObject *x = ((const Pair *)a)->key, *y = ((const Pair *)b)->key;
    int less = PyObject_RichCompareBool(x, y, Py_LT);
    return less > 0 ? -1 : (PyObject_RichCompareBool(y, x, Py_LT) > 0 ? 1 : 0);
}

/* 1 when the keys are not all str or all int (fallback) */
static int write_dict(Buf *b, PyObject *v, long depth, Plan *pl) {
    if (depth > pl->max_depth) return put_ascii(b, "{}", 2);
    Py_ssize_t n = PyDict_GET_SIZE(v);
    if (n == 0) return put_str(b, pl->empty_dict, RAW);
    Pair *pairs = PyMem_Malloc((size_t)n * sizeof(Pair));
    if (!pairs) { PyErr_NoMemory(); return -1; }
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    int strs = 1, ints = 1;
    while (i < n && PyDict_Next(v, &pos, &key, &value)) {
        strs &= PyUnicode_CheckExact(key);
        ints &= PyLong_CheckExact(key);
        Py_INCREF(key);
        Py_INCREF(value);
        pairs[i].key = key;
        pairs[i++].value = value;
    }
    int r = (strs || ints) && i == n ? 0 : 1;
    if (r == 0) {
        qsort(pairs, (size_t)n, sizeof(Pair), strs ? str_order : int_order);
        r = put_ascii(b, "{\n", 2);
        for (Py_ssize_t j = 0; j < n && r >= 0; j++) {
            if (j) r = put_ascii(b, ",\n", 2);
            if (r >= 0) r = write_value(b, pairs[j].key, depth + 1, pl);
            if (r >= 0) r = put_ascii(b, ": ", 2);
            if (r >= 0) r = write_value(b, pairs[j].value, depth + 1, pl);
        }
        if (r >= 0) r = put_ascii(b, "\n}", 2);
    }
    for (Py_ssize_t j = 0; j < i; j++) {
        Py_DECREF(pairs[j].key);
        Py_DECREF(pairs[j].value);
    }
    PyMem_Free(pairs);
    return r;
}

static int write_value(Buf *b, PyObject *v, long depth, Plan *pl) {
    PyTypeObject *t = Py_TYPE(v);
    int r = 1;
    if (v == Py_None) return put_ascii(b, "null", 4);
    if (v == Py_True) return put_ascii(b, "true", 4);
    if (v == Py_False) return put_ascii(b, "false", 5);
    if (t == &PyLong_Type) return put_obj_str(b, v);
    if (t == &PyFloat_Type) return put_float(b, PyFloat_AS_DOUBLE(v));
    if (t == &PyUnicode_Type) {
        if (put_ascii(b, "\"", 1) < 0 || put_str(b, v, QUOTES) < 0) return -1;
        return put_ascii(b, "\"", 1);
    }
    if (t == &PyList_Type || t == &PyTuple_Type) {
        if (Py_EnterRecursiveCall(" while writing Godot text")) return -1;
        r = write_array(b, v, depth, pl);
        Py_LeaveRecursiveCall();
        return r;
    }
    if (t == &PyDict_Type) {
        if (Py_EnterRecursiveCall(" while writing Godot text")) return -1;
        Py_ssize_t mark = b->n;
        r = write_dict(b, v, depth, pl);
        Py_LeaveRecursiveCall();
        if (r <= 0) return r;
        b->n = mark;
    } else if ((PyObject *)t == pl->sname_type) {
        if (put_ascii(b, "&\"", 2) < 0 || put_str(b, v, FULL) < 0) return -1;
        return put_ascii(b, "\"", 1);
    } else if (t == &PyBytes_Type && pl->byte_name != Py_None) {
        return write_bytes(b, v, pl->byte_name);
    } else if ((PyObject *)t == pl->packed_strings_type && pl->string_name != Py_None) {
        Py_ssize_t n = PyTuple_GET_SIZE(v);
        int plain = 1;
        for (Py_ssize_t i = 0; i < n; i++) plain &= PyUnicode_CheckExact(PyTuple_GET_ITEM(v, i));
        if (plain) return write_strings(b, v, pl->string_name);
    } else {
        PyObject *spec = PyDict_GetItemWithError(pl->maths, (PyObject *)t);
        if (spec) {
            Py_ssize_t mark = b->n;
            r = write_math(b, v, spec);
            if (r <= 0) return r;
            b->n = mark;
        } else if (PyErr_Occurred()) {
            return -1;
        } else if ((spec = PyDict_GetItemWithError(pl->packed, (PyObject *)t)) != NULL) {
            return write_packed(b, v, spec);
        } else if (PyErr_Occurred()) {
            return -1;
        }
    }
    return fallback(b, v, depth, pl);
}

static PyObject *text_write(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *value, *plan, *fb;
    if (!PyArg_ParseTuple(args, "OO!O:write", &value, &PyTuple_Type, &plan, &fb)) return NULL;
    Plan pl;
    if (!PyArg_ParseTuple(plan, "lUO!O!OOOO:plan", &pl.max_depth, &pl.empty_dict, &PyDict_Type,
                          &pl.maths, &PyDict_Type, &pl.packed, &pl.byte_name, &pl.string_name,
                          &pl.sname_type, &pl.packed_strings_type))
        return NULL;
    pl.fallback = fb;
    Buf b = {NULL, 0, 0, 0};
    PyObject *out = NULL;
    if (write_value(&b, value, 0, &pl) == 0)
        out = b.n ? PyUnicode_FromKindAndData(b.wide ? PyUnicode_4BYTE_KIND : PyUnicode_1BYTE_KIND,
                                              b.p, b.n)
                  : PyUnicode_New(0, 0);
    PyMem_Free(b.p);
    return out;
}

/* ---- the reader ------------------------------------------------------------------------
 *
 * read(text, plan) -> value, or NotImplemented: the first value of Godot 4.5+ text, as the pure
 * parser reads it (read_from(text, plan, start) -> (value, end): the value that starts at
 * start, and where it ends), for the texts a save is made of. Anything else (an error, \u escapes,
 * surrogates, a name it has no entry for, a NodePath, an Object, a typed container, a too deep
 * nesting...) gives NotImplemented, and the pure parser reads the whole text: it is the
 * reference, and every error is its own. The plan comes from
 * gdvariant._text.parser.compiled_plan: (max_depth, names, dictionary, StringName), where
 * names maps a constructor name to (kind, components, build): kind "i32"/"f32" for the math
 * types (build(tuple) makes the value; components is the count it takes), "i32"/"i64"/"f32"/
 * "f64" with components = -width for the packed arrays (build(bytes) makes the value), or
 * "str" for PackedStringArray (build(list)); dictionary(pairs) makes a Dictionary the way the
 * pure parser does, for keys that are not all str or all int.
 */

typedef struct {
    PyObject *text;
    int kind;
    const void *data;
    Py_ssize_t pos, len;
    long max_depth;
    PyObject *names, *dictionary, *sname_type;
} Reader;

#define HANDBACK 2 /* a result code: the pure parser must read this text */

static Py_UCS4 at(Reader *r, Py_ssize_t i) { return i < r->len ? PyUnicode_READ(r->kind, r->data, i) : 0; }

static void skip_space(Reader *r) {
    for (;;) {
        Py_UCS4 c = at(r, r->pos);
        if (r->pos >= r->len) return;
        if (c >= 1 && c <= 32) { r->pos++; continue; }
        if (c == ';') {
            while (r->pos < r->len && at(r, r->pos) != '\n' && at(r, r->pos) != 0) r->pos++;
            continue;
        }
        return;
    }
}

static int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static int is_ident_start(Py_UCS4 c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int is_ident(Py_UCS4 c) { return is_ident_start(c) || is_digit(c); }

/* Whether [s, e) spells the ASCII word w */
static int spells(Reader *r, Py_ssize_t s, Py_ssize_t e, const char *w) {
    Py_ssize_t n = (Py_ssize_t)strlen(w);
    if (e - s != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (at(r, s + i) != (Py_UCS4)(unsigned char)w[i]) return 0;
    return 1;
}

/* A number token at r->pos (a digit, or '-' and a digit): -?D*(.D*)?([eE][+-]?D*)?, read in one
 * pass. With no '.' or exponent, an int: *is_int and *integer (HANDBACK past 18 digits, which
 * the pure parser clamps). Else *real, by Godot's built_in_strtod as
 * gdvariant._floats.godot_strtod: at most 18 mantissa digits kept (leading zeros count),
 * folded as 1e9 * head + tail, then one multiply or divide by 10^|exp| built from a table. */
static int number(Reader *r, int *is_int, long long *integer, double *real) {
    static const double powers[] = {1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256};
    Py_ssize_t i = r->pos, len = r->len;
    int negative = at(r, i) == '-';
    i += negative;
    long long size = 0, point = -1, exp = 0;
    int kept = 0, exp_negative = 0, has_exp = 0;
    char digits[18];
    Py_UCS4 c = 0;
    for (; i < len && is_digit(c = at(r, i)); i++, size++)
        if (kept < 18) digits[kept++] = (char)(c - '0');
    if (i < len && c == '.') {
        point = size;
        for (i++; i < len && is_digit(c = at(r, i)); i++, size++)
            if (kept < 18) digits[kept++] = (char)(c - '0');
    }
    if (i < len && (c == 'e' || c == 'E')) {
        has_exp = 1;
        i++;
        if (i < len && ((c = at(r, i)) == '+' || c == '-')) { exp_negative = c == '-'; i++; }
        for (; i < len && is_digit(c = at(r, i)); i++)
            if (exp < 100000000) exp = exp * 10 + (c - '0');
    }
    r->pos = i;
    if (point < 0 && !has_exp) {
        if (size > 18) return HANDBACK;
        long long value = 0;
        for (int j = 0; j < kept; j++) value = value * 10 + digits[j];
        *is_int = 1;
        *integer = negative ? -value : value;
        return 0;
    }
    *is_int = 0;
    if (point < 0) point = size;
    long long frac_exp = size > 18 ? point - 18 : point - size;
    if (kept == 0) { *real = negative ? -0.0 : 0.0; return 0; }
    unsigned long long head = 0, tail = 0;
    for (int j = 0; j < kept; j++) {
        if (j < kept - 9) head = head * 10 + (unsigned long long)digits[j];
        else tail = tail * 10 + (unsigned long long)digits[j];
    }
    double fraction = 1.0e9 * (double)head + (double)tail;
    exp = exp_negative ? frac_exp - exp : frac_exp + exp;
    int divide = exp < 0;
    exp = exp < 0 ? -exp : exp;
    if (exp > 511) exp = 511;
    double scale = 1.0;
    for (int k = 0; k < 9 && exp; k++, exp >>= 1)
        if (exp & 1) scale *= powers[k];
    fraction = divide ? fraction / scale : fraction * scale;
    *real = negative ? -fraction : fraction;
    return 0;
}

/* The body of a string whose opening quote is at r->pos; HANDBACK for \u, \U, NUL, surrogates */
static int string(Reader *r, PyObject **out) {
    Py_ssize_t start = ++r->pos, i = start;
    int escapes = 0;
    for (;; i++) {
        if (i >= r->len) return HANDBACK;
        Py_UCS4 c = at(r, i);
        if (c == '"') break;
        if (c == 0 || (c >= 0xD800 && c <= 0xDFFF)) return HANDBACK;
        if (c == '\\') {
            Py_UCS4 n = at(r, ++i);
            if (i >= r->len || n == 0 || n == 'u' || n == 'U' || (n >= 0xD800 && n <= 0xDFFF)) return HANDBACK;
            escapes = 1;
        }
    }
    r->pos = i + 1;
    if (!escapes) {
        *out = PyUnicode_Substring(r->text, start, i);
        return *out ? 0 : -1;
    }
    Py_UCS4 *buf = PyMem_Malloc((size_t)(i - start + 1) * sizeof(Py_UCS4));
    if (!buf) { PyErr_NoMemory(); return -1; }
    Py_ssize_t n = 0;
    for (Py_ssize_t j = start; j < i; j++) {
        Py_UCS4 c = at(r, j);
        if (c == '\\') {
            c = at(r, ++j);
            switch (c) {
            case 'b': c = '\b'; break;
            case 't': c = '\t'; break;
            case 'n': c = '\n'; break;
            case 'f': c = '\f'; break;
            case 'r': c = '\r'; break;
            default: break;
            }
        }
        buf[n++] = c;
    }
    *out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n);
    PyMem_Free(buf);
    return *out ? 0 : -1;
}

static int read_value(Reader *r, long depth, PyObject **out);

/* Punctuation c next (after white space): 1 and consumed, else 0 */
static int next_is(Reader *r, Py_UCS4 c) {
    skip_space(r);
    if (r->pos < r->len && at(r, r->pos) == c) { r->pos++; return 1; }
    return 0;
}

static int read_array(Reader *r, long depth, PyObject **out) {
    PyObject *list = PyList_New(0);
    if (!list) return -1;
    if (next_is(r, ']')) { *out = list; return 0; }
    for (;;) {
        PyObject *item;
        int rc = read_value(r, depth, &item);
        if (rc) { Py_DECREF(list); return rc; }
        rc = PyList_Append(list, item);
        Py_DECREF(item);
        if (rc < 0) { Py_DECREF(list); return -1; }
        if (next_is(r, ']')) { *out = list; return 0; }
        if (!next_is(r, ',')) { Py_DECREF(list); return HANDBACK; }
        if (next_is(r, ']')) { *out = list; return 0; } /* a trailing comma */
    }
}

/* Keys that are all str or int go straight into a dict (a repeated key keeps its first
 * spelling and its last value, as the pure parser's merge does); from the first key of any
 * other type on, the pairs so far and the rest go to the plan's dictionary(pairs). */
static int read_dict(Reader *r, long depth, PyObject **out) {
    PyObject *dict = PyDict_New(), *pairs = NULL;
    int rc = dict ? 0 : -1;
    if (rc == 0 && !next_is(r, '}')) {
        for (;;) {
            PyObject *key, *value;
            if ((rc = read_value(r, depth, &key))) break;
            if (!next_is(r, ':')) { Py_DECREF(key); rc = HANDBACK; break; }
            if ((rc = read_value(r, depth, &value))) { Py_DECREF(key); break; }
            if (!pairs && !PyUnicode_CheckExact(key) && !PyLong_CheckExact(key)) {
                pairs = PyDict_Items(dict);
                if (!pairs) rc = -1;
            }
            if (rc == 0 && pairs) {
                PyObject *pair = PyTuple_Pack(2, key, value);
                rc = pair && PyList_Append(pairs, pair) == 0 ? 0 : -1;
                Py_XDECREF(pair);
            } else if (rc == 0) {
                rc = PyDict_SetItem(dict, key, value);
            }
            Py_DECREF(key);
            Py_DECREF(value);
            if (rc) break;
            if (next_is(r, '}')) break;
            if (!next_is(r, ',')) { rc = HANDBACK; break; }
            if (next_is(r, '}')) break; /* a trailing comma */
        }
    }
    if (rc == 0 && pairs) {
        Py_SETREF(dict, PyObject_CallOneArg(r->dictionary, pairs));
        rc = dict ? 0 : -1;
    }
    Py_XDECREF(pairs);
    if (rc) { Py_XDECREF(dict); return rc; }
    *out = dict;
    return 0;
}

/* One constructor argument, converted as _convert(value, kind) does, into *out (8 bytes) */
static int argument(Reader *r, char kind, double *real, long long *integer) {
    skip_space(r);
    Py_UCS4 c = at(r, r->pos);
    int is_int = 0;
    long long iv = 0;
    double fv = 0;
    if (c == '-' ? is_digit(at(r, r->pos + 1)) : is_digit(c)) {
        int rc = number(r, &is_int, &iv, &fv);
        if (rc) return rc;
    } else if (is_ident_start(c)) {
        Py_ssize_t s = r->pos, e = s;
        while (e < r->len && is_ident(at(r, e))) e++;
        if (spells(r, s, e, "inf")) fv = INFINITY;
        else if (spells(r, s, e, "inf_neg")) fv = -INFINITY;
        else if (spells(r, s, e, "nan")) fv = NAN;
        else return HANDBACK;
        r->pos = e;
    } else {
        return HANDBACK;
    }
    if (kind == 'i' || kind == 'q') { /* i32, i64: clamp a float to int64, then wrap */
        if (!is_int) {
            if (!isfinite(fv)) iv = INT64_MIN;
            else if (fv >= 9223372036854775807.0) iv = INT64_MAX;
            else if (fv <= -9223372036854775808.0) iv = INT64_MIN;
            else iv = (long long)fv;
        }
        *integer = kind == 'i' ? (long long)(int32_t)(uint32_t)(uint64_t)iv : iv;
    } else {
        double d = is_int ? (double)iv : fv;
        *real = kind == 'f' ? (double)(float)d : d;
    }
    return 0;
}

/* Constructor arguments, converted, in C: one 8-byte slot each */
typedef union {
    double real;
    long long integer;
} Num;

typedef struct {
    Num *v;
    Py_ssize_t n, cap;
} Nums;

/* "(a, b, ...)" converted by kind into nums (which the caller frees) */
static int arguments(Reader *r, char kind, Nums *nums) {
    if (!next_is(r, '(')) return HANDBACK;
    if (next_is(r, ')')) return 0;
    for (;;) {
        if (nums->n == nums->cap) {
            Py_ssize_t cap = nums->cap ? nums->cap * 2 : 16;
            Num *v = PyMem_Realloc(nums->v, (size_t)cap * sizeof(Num));
            if (!v) { PyErr_NoMemory(); return -1; }
            nums->v = v;
            nums->cap = cap;
        }
        Num *slot = &nums->v[nums->n++];
        int rc = argument(r, kind, &slot->real, &slot->integer);
        if (rc) return rc;
        if (next_is(r, ')')) return 0;
        if (!next_is(r, ',')) return HANDBACK;
    }
}

/* A math value's components as a tuple of ints or floats */
static PyObject *number_tuple(Nums *nums, char kind) {
    PyObject *t = PyTuple_New(nums->n);
    for (Py_ssize_t i = 0; t && i < nums->n; i++) {
        PyObject *x = kind == 'i' ? PyLong_FromLongLong(nums->v[i].integer) : PyFloat_FromDouble(nums->v[i].real);
        if (!x) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* A packed array's little-endian element data, cut to whole elements of width components */
static PyObject *packed_bytes(Nums *nums, char kind, Py_ssize_t width) {
    Py_ssize_t n = nums->n - nums->n % width;
    int size = (kind == 'i' || kind == 'f') ? 4 : 8;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * size);
    if (!out) return NULL;
    char *p = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++, p += size) {
        Num x = nums->v[i];
        if (kind == 'i') { int32_t v = (int32_t)x.integer; memcpy(p, &v, 4); }
        else if (kind == 'q') { int64_t v = x.integer; memcpy(p, &v, 8); }
        else if (kind == 'f') { float v = (float)x.real; memcpy(p, &v, 4); }
        else memcpy(p, &x.real, 8);
    }
    return out;
}

static int strings(Reader *r, PyObject **list) {
    if (!next_is(r, '(')) return HANDBACK;
    *list = PyList_New(0);
    if (!*list) return -1;
    if (next_is(r, ')')) return 0;
    for (;;) {
        skip_space(r);
        PyObject *s;
        int rc = at(r, r->pos) == '"' && r->pos < r->len ? string(r, &s) : HANDBACK;
        if (rc == 0) { rc = PyList_Append(*list, s); Py_DECREF(s); }
        if (rc) { Py_CLEAR(*list); return rc; }
        if (next_is(r, ')')) return 0;
        if (!next_is(r, ',')) { Py_CLEAR(*list); return HANDBACK; }
    }
}

/* Whether build is a math class whose value is its components in order (the plan then gives
 * the class itself, not a function to call), and the value of the tuple of them */
static int flat_class(PyObject *build, PyObject *components) {
    return PyType_Check(build) && build != (PyObject *)&PyTuple_Type &&
           PyType_IsSubtype((PyTypeObject *)build, &PyTuple_Type) && PyTuple_CheckExact(components);
}

static PyObject *flat_value(PyTypeObject *cls, PyObject *components) {
    Py_ssize_t n = PyTuple_GET_SIZE(components);
    PyObject *value = cls->tp_alloc(cls, n);
    if (!value) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(value, i, Py_NewRef(PyTuple_GET_ITEM(components, i)));
    PyObject_GC_UnTrack(value); /* numbers only: no cycle runs through it */
    return value;
}

static int constructor(Reader *r, PyObject *spec, PyObject **out) {
    const char *kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 0));
    if (!kind) return -1;
    long count = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    PyObject *build = PyTuple_GET_ITEM(spec, 2), *arg = NULL;
    int rc;
    if (strcmp(kind, "str") == 0) {
        if ((rc = strings(r, &arg))) return rc;
    } else {
        char code = strcmp(kind, "i32") == 0 ? 'i' : strcmp(kind, "i64") == 0 ? 'q' : strcmp(kind, "f32") == 0 ? 'f' : 'd';
        Nums nums = {NULL, 0, 0};
        rc = arguments(r, code, &nums);
        if (rc == 0 && count > 0 && nums.n != count) rc = HANDBACK;
        if (rc == 0) {
            arg = count > 0 ? number_tuple(&nums, code) : packed_bytes(&nums, code, -count);
            rc = arg ? 0 : -1;
        }
        PyMem_Free(nums.v);
        if (rc) return rc;
    }
    *out = flat_class(build, arg) ? flat_value((PyTypeObject *)build, arg) : PyObject_CallOneArg(build, arg);
    Py_DECREF(arg);
    return *out ? 0 : -1;
}

static int identifier(Reader *r, PyObject **out) {
    Py_ssize_t s = r->pos, e = s;
    while (e < r->len && is_ident(at(r, e))) e++;
    r->pos = e;
    static const char *words[] = {"true", "false", "null", "nil", "inf", "inf_neg", "nan"};
    int found = -1;
    for (int i = 0; i < 7 && found < 0; i++)
        if (spells(r, s, e, words[i])) found = i;
    switch (found) {
    case 0: *out = Py_NewRef(Py_True); return 0;
    case 1: *out = Py_NewRef(Py_False); return 0;
    case 2: case 3: *out = Py_NewRef(Py_None); return 0;
    case 4: *out = PyFloat_FromDouble(INFINITY); return *out ? 0 : -1;
    case 5: *out = PyFloat_FromDouble(-INFINITY); return *out ? 0 : -1;
    case 6: *out = PyFloat_FromDouble(NAN); return *out ? 0 : -1;
    default: break;
    }
    PyObject *word = PyUnicode_Substring(r->text, s, e);
    if (!word) return -1;
    PyObject *spec = PyDict_GetItemWithError(r->names, word);
    Py_DECREF(word);
    if (!spec) return PyErr_Occurred() ? -1 : HANDBACK;
    return constructor(r, spec, out);
}

static int read_value(Reader *r, long depth, PyObject **out) {
    skip_space(r);
    if (r->pos >= r->len) return HANDBACK;
    Py_UCS4 c = at(r, r->pos);
    int rc;
    if (c == '[' || c == '{') {
        if (depth >= r->max_depth) return HANDBACK;
        r->pos++;
        if (Py_EnterRecursiveCall(" while reading Godot text")) return -1;
        rc = c == '[' ? read_array(r, depth + 1, out) : read_dict(r, depth + 1, out);
        Py_LeaveRecursiveCall();
        return rc;
    }
    if (c == '"') return string(r, out);
    if (c == '&') {
        r->pos++;
        if (at(r, r->pos) != '"' || r->pos >= r->len) return HANDBACK;
        PyObject *s;
        if ((rc = string(r, &s))) return rc;
        *out = PyObject_CallOneArg(r->sname_type, s);
        Py_DECREF(s);
        return *out ? 0 : -1;
    }
    if (c == '-' ? is_digit(at(r, r->pos + 1)) : is_digit(c)) {
        int is_int;
        long long integer;
        double real;
        if ((rc = number(r, &is_int, &integer, &real))) return rc;
        *out = is_int ? PyLong_FromLongLong(integer) : PyFloat_FromDouble(real);
        return *out ? 0 : -1;
    }
    if (is_ident_start(c)) return identifier(r, out);
    return HANDBACK;
}

/* The value that starts at start: 0 with *out and r->pos just past it, HANDBACK, or -1 */
static int read_at(PyObject *text, PyObject *plan, Py_ssize_t start, Reader *r, PyObject **out) {
    if (!PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 4 || !PyDict_Check(PyTuple_GET_ITEM(plan, 1))) {
        PyErr_SetString(PyExc_TypeError, "plan: (max_depth, names: dict, dictionary, StringName)");
        return -1;
    }
    r->max_depth = PyLong_AsLong(PyTuple_GET_ITEM(plan, 0));
    if (r->max_depth == -1 && PyErr_Occurred()) return -1;
    r->names = PyTuple_GET_ITEM(plan, 1);
    r->dictionary = PyTuple_GET_ITEM(plan, 2);
    r->sname_type = PyTuple_GET_ITEM(plan, 3);
    r->text = text;
    r->kind = PyUnicode_KIND(text);
    r->data = PyUnicode_DATA(text);
    r->len = PyUnicode_GET_LENGTH(text);
    r->pos = start < 0 ? r->len : start;
    return read_value(r, 0, out);
}

static PyObject *text_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    PyObject *out = NULL;
    Reader r;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "read(text: str, plan: tuple)");
        return NULL;
    }
    int rc = read_at(args[0], args[1], 0, &r, &out);
    if (rc == HANDBACK) Py_RETURN_NOTIMPLEMENTED;
    return rc == 0 ? out : NULL;
}

static PyObject *text_read_from(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *text, *plan, *out = NULL;
    Py_ssize_t start;
    Reader r;
    if (!PyArg_ParseTuple(args, "UO!n:read_from", &text, &PyTuple_Type, &plan, &start)) return NULL;
    int rc = read_at(text, plan, start, &r, &out);
    if (rc == HANDBACK) Py_RETURN_NOTIMPLEMENTED;
    if (rc) return NULL;
    PyObject *pair = Py_BuildValue("(Nn)", out, r.pos);
    return pair;
}

static PyMethodDef methods[] = {
    {"write", text_write, METH_VARARGS, "write(value, plan, fallback) -> str: Godot 4.5+ text"},
    {"read", (PyCFunction)(void (*)(void))text_read, METH_FASTCALL, "read(text, plan) -> value, or NotImplemented"},
    {"read_from", text_read_from, METH_VARARGS,
     "read_from(text, plan, start) -> (value, end), or NotImplemented"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._text._ctext", "The compiled text writer and reader.", -1, methods,
};

PyMODINIT_FUNC PyInit__ctext(void) { return PyModule_Create(&module); }
