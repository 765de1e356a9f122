/* The compiled write path of gdvariant.replication: NetClass.__setattr__ for the writes a game
 * makes every tick, `entity.position = Vector2(...)` on a spawned entity, and Prop.__get__ for
 * its reads (see "reads" below).
 *
 * The pure-Python NetClass.__setattr__ (and the _net_write it calls) is the reference, and this
 * file calls it for everything it does not do itself: an embedded table's view, a name that is
 * not a plain networked property of the class, an entity not spawned by a World, and every
 * value its codec refuses (so the error, and its message naming entity, class and property, is
 * the pure one's). What it does itself is exactly what _net_write does, in the same order, on
 * the same objects: encode the value, store it in _net_vals (the object written, as is), and if
 * its bits or width differ from _net_bits/_net_widths, store them and mark the property dirty
 * (_net_dirty, _net_before, the world's dirty list). tests/replication/test_write_path.py compares
 * the two over random worlds and writes, bad ones included.
 *
 * The codec's encode is done in C for the codecs a game writes most (exact types only, so a
 * subclass with its own encode is called): a Vec2/3/4 of Half/Float32/Float64 given a vector of
 * exactly its type with float components, a scalar Half/Float32/Float64 given a float, an Int or
 * UInt given an int, a Bool given a bool, and a Quant, Coord or Angle (alone or as a vector's
 * components) given floats or ints, a vector as its type, a tuple or a list. Any other codec or
 * value calls codec.encode. The IEEE packing is CPython's own (PyFloat_Pack2/4/8), so the bits
 * are struct's, as the pure codecs'; the quantized ones are the same float64 operations, in the
 * same order, as the pure encode (_float_codecs.py), on the numbers _write_path.plan read from
 * the codec, so the bits are the pure codec's too.
 *
 * Per layout, _write_path.plan(layout) describes the classes' properties; the first write of a
 * layout turns it into a C plan, kept in the layout's __dict__ under _net_write_plan.
 *
 * A detached entity (World.detached: a multiplayer node's state) keeps only its values; its
 * class is a subclass whose plain properties are Fields, descriptors over the values list the
 * entity also holds in a slot (see "detached entities" below).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

/* Write kinds (the same numbers as _write_path.py's W_*). */
enum { W_WHOLE = 0, W_VEC, W_FLOAT, W_INT, W_UINT, W_BOOL, W_QUANT, W_QVEC };
/* A quantized component's codec (_write_path.py's Q_*). */
enum { Q_QUANT = 1, Q_COORD, Q_ANGLE };

typedef struct {
    int kind, count, size, wide, bits, zigzag;
    Py_ssize_t at;           /* the property's flat index */
    char code;               /* 'e', 'f' or 'd': the IEEE component's format */
    PyObject *codec;         /* strong */
    PyObject *make;          /* strong: the vector type (W_VEC) */
    PyObject *index, *mask;  /* strong: i and 1 << i */
    /* W_QUANT and W_QVEC: the component codec (Q_*), its clamp, two bit counts and four
     * numbers, as _write_path._quantized lists them for each Q_* */
    int qkind, qclamp, qb1, qb2;
    double q1, q2, q3, q4;
} Prop;

typedef struct {
    PyObject *cls, *index, *names; /* strong: the class, layout.index, {plain name: i} */
    Py_ssize_t count;
    Prop *props;
} Plan;

static PyObject *g_pure;         /* NetClass.__setattr__ of the pure path */
static PyObject *g_plan_of;      /* _write_path.plan */
static PyObject *g_encode_error; /* gdvariant.EncodeError */
static PyObject *s_root, *s_prefix, *s_layout, *s_index, *s_vals, *s_bits, *s_widths;
static PyObject *s_world, *s_dirty, *s_before, *s_plan, *s_encode, *s_dirty_list, *s_append;
static PyObject *k_one;

#define PLAN_NAME "gdvariant.replication._cwrite.Plan"

/* ---- plans ---------------------------------------------------------------------------- */

static void plan_free(PyObject *capsule) {
    Plan *p = PyCapsule_GetPointer(capsule, PLAN_NAME);
    if (!p)
        return;
    for (Py_ssize_t k = 0; p->props && k < p->count; k++) {
        Prop *q = &p->props[k];
        Py_XDECREF(q->codec);
        Py_XDECREF(q->make);
        Py_XDECREF(q->index);
        Py_XDECREF(q->mask);
    }
    Py_XDECREF(p->cls);
    Py_XDECREF(p->index);
    Py_XDECREF(p->names);
    PyMem_Free(p->props);
    PyMem_Free(p);
}

/* Whether the quantized component's numbers are ones the pure codec can have (what
 * quant_one relies on: its widths fit a word, its scale and levels are exact). */
static int quantized_ok(const Prop *q) {
    switch (q->qkind) {
    case Q_QUANT:
        return q->qb1 >= 1 && q->qb1 <= 32 && q->q3 > 0 && q->q4 == ldexp(1.0, q->qb1) - 1;
    case Q_COORD:
        return q->qb1 >= 1 && q->qb1 <= 24 && q->qb2 >= 0 && q->qb2 <= 8 &&
               q->q2 == ldexp(1.0, q->qb2) && q->q3 == ldexp(1.0, q->qb1 + q->qb2) + q->q2 - 1;
    case Q_ANGLE:
        return q->qb1 >= 2 && q->qb1 <= 32 && q->q2 > 0;
    default:
        return 0;
    }
}

static int prop_parse(PyObject *desc, Prop *q, Py_ssize_t i) {
    PyObject *codec, *make, *quantized = Py_None;
    int code;
    if (!PyTuple_Check(desc)) {
        PyErr_SetString(PyExc_TypeError, "bad write plan: a property's plan is not a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(desc, "iOiCiiiO|O", &q->kind, &codec, &q->count, &code, &q->wide,
                          &q->bits, &q->zigzag, &make, &quantized))
        return -1;
    q->code = (char)code;
    q->size = code == 'e' ? 2 : code == 'f' ? 4 : 8;
    int wants = q->kind == W_QUANT || q->kind == W_QVEC;
    if (wants && (!PyTuple_Check(quantized) ||
                  !PyArg_ParseTuple(quantized, "iiiidddd", &q->qkind, &q->qclamp, &q->qb1,
                                    &q->qb2, &q->q1, &q->q2, &q->q3, &q->q4))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "bad write plan: no quantized component");
        return -1;
    }
    if (q->kind < W_WHOLE || q->kind > W_QVEC || q->count < 1 || q->count > 4 ||
        q->bits < 1 || q->bits > 64 || (code != 'e' && code != 'f' && code != 'd') ||
        (wants && !quantized_ok(q))) {
        PyErr_SetString(PyExc_ValueError, "bad write plan");
        return -1;
    }
    Py_INCREF(codec);
    q->codec = codec;
    Py_INCREF(make);
    q->make = make;
    PyObject *one = PyLong_FromLong(1);
    q->at = i;
    q->index = PyLong_FromSsize_t(i);
    q->mask = one && q->index ? PyNumber_Lshift(one, q->index) : NULL;
    Py_XDECREF(one);
    return q->mask ? 0 : -1;
}

/* A new capsule holding the C plan of _write_path.plan's description. */
static PyObject *plan_build(PyObject *desc) {
    PyObject *cls, *index, *names, *props;
    if (!PyTuple_Check(desc)) {
        PyErr_SetString(PyExc_TypeError, "bad write plan: not a tuple");
        return NULL;
    }
    if (!PyArg_ParseTuple(desc, "OO!O!O!", &cls, &PyDict_Type, &index, &PyDict_Type, &names,
                          &PyTuple_Type, &props))
        return NULL;
    Plan *p = PyMem_Calloc(1, sizeof(Plan));
    if (!p)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(p, PLAN_NAME, plan_free);
    if (!capsule) {
        PyMem_Free(p);
        return NULL;
    }
    Py_INCREF(cls);
    p->cls = cls;
    Py_INCREF(index);
    p->index = index;
    Py_INCREF(names);
    p->names = names;
    Py_ssize_t n = PyTuple_GET_SIZE(props), pos = 0;
    PyObject *key, *i;
    while (PyDict_Next(names, &pos, &key, &i)) {
        Py_ssize_t at = PyLong_Check(i) ? PyLong_AsSsize_t(i) : -1;
        if (at < 0 || at >= n) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "bad write plan: a name's index is out of range");
            Py_DECREF(capsule);
            return NULL;
        }
    }
    p->props = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Prop));
    if (!p->props) {
        Py_DECREF(capsule);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        p->count = k + 1; /* plan_free frees what is parsed */
        if (prop_parse(PyTuple_GET_ITEM(props, k), &p->props[k], k)) {
            Py_DECREF(capsule);
            return NULL;
        }
    }
    return capsule;
}

/* The capsule of layout's plan (made on its first write, then kept in its __dict__), a new
 * reference; NULL with no error set if it has none (no __dict__, or something else there). */
static PyObject *plan_for(PyObject *layout) {
    PyObject *ld = PyObject_GenericGetDict(layout, NULL);
    if (!ld || !PyDict_CheckExact(ld)) {
        Py_XDECREF(ld);
        PyErr_Clear();
        return NULL;
    }
    PyObject *capsule = PyDict_GetItemWithError(ld, s_plan);
    Py_XINCREF(capsule);
    Py_DECREF(ld);
    if (!capsule) {
        if (PyErr_Occurred())
            return NULL;
        PyObject *desc = PyObject_CallOneArg(g_plan_of, layout);
        capsule = desc ? plan_build(desc) : NULL;
        Py_XDECREF(desc);
        if (!capsule || PyObject_SetAttr(layout, s_plan, capsule)) {
            Py_XDECREF(capsule);
            return NULL;
        }
    }
    if (!PyCapsule_IsValid(capsule, PLAN_NAME))
        Py_CLEAR(capsule);
    return capsule;
}

/* ---- encoding ------------------------------------------------------------------------- */

static int pack(const Prop *q, double x, unsigned char *out) {
    switch (q->code) {
    case 'e':
        return PyFloat_Pack2(x, (char *)out, 1);
    case 'f':
        return PyFloat_Pack4(x, (char *)out, 1);
    default:
        return PyFloat_Pack8(x, (char *)out, 1);
    }
}

static PyObject *long_from_le(const unsigned char *buf, size_t n) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(
        buf, n, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
#else
    return _PyLong_FromByteArray(buf, n, 1, 0);
#endif
}

/* Whether value is one q's fast kinds take: 1, with its bits packed into buf (*n bytes, the
 * IEEE kinds) or *u (the integer kinds); 0 with no error set when it is not (or is out of
 * range: codec.encode names it). */
static int fast_pack(const Prop *q, PyObject *value, unsigned char *buf, size_t *n, uint64_t *u) {
    unsigned char scratch[4];
    switch (q->kind) {
    case W_VEC: {
        if (Py_TYPE(value) != (PyTypeObject *)q->make || !PyTuple_Check(value) ||
            PyTuple_GET_SIZE(value) != q->count)
            return 0;
        for (int c = 0; c < q->count; c++) {
            PyObject *item = PyTuple_GET_ITEM(value, c);
            if (!PyFloat_CheckExact(item))
                return 0;
            double x = PyFloat_AS_DOUBLE(item);
            if (pack(q, x, buf + c * q->size) || (q->wide && PyFloat_Pack4(x, (char *)scratch, 1))) {
                PyErr_Clear(); /* out of float32's range */
                return 0;
            }
        }
        *n = (size_t)(q->count * q->size);
        return 1;
    }
    case W_FLOAT:
        if (!PyFloat_CheckExact(value))
            return 0;
        if (pack(q, PyFloat_AS_DOUBLE(value), buf)) {
            PyErr_Clear();
            return 0;
        }
        *n = (size_t)q->size;
        return 1;
    case W_INT: {
        if (!PyLong_CheckExact(value))
            return 0;
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        if (q->bits < 64) {
            long long half = 1LL << (q->bits - 1);
            if (v < -half || v >= half)
                return 0;
        }
        *u = (uint64_t)v;
        if (q->zigzag)
            *u = v >= 0 ? (uint64_t)v << 1 : (((uint64_t)0 - (uint64_t)v) << 1) - 1;
        else if (q->bits < 64)
            *u &= ((uint64_t)1 << q->bits) - 1;
        return 1;
    }
    case W_UINT: {
        if (!PyLong_CheckExact(value))
            return 0;
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (overflow || v < 0 || (q->bits < 63 && v >= 1LL << q->bits))
            return 0; /* a UInt(64) past 2**63 too: rare, and codec.encode takes it */
        *u = (uint64_t)v;
        return 1;
    }
    case W_BOOL:
        if (value != Py_True && value != Py_False)
            return 0;
        *u = value == Py_True;
        return 1;
    default:
        return 0;
    }
}

/* A quantized component's value as _float_codecs._finite takes it: 1 with *x, 0 (no error
 * set) for anything the pure path must look at (another type, a bool, an int too large for a
 * float, an infinity or NaN: all errors there). */
static int finite_number(PyObject *v, double *x) {
    if (PyFloat_CheckExact(v)) {
        *x = PyFloat_AS_DOUBLE(v);
    } else if (PyLong_CheckExact(v)) {
        *x = PyLong_AsDouble(v);
        if (*x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    } else {
        return 0;
    }
    return isfinite(*x);
}

/* Quant.encode: clamp (max, then min, as Python's pick ties), then the grid point. */
static int quant_grid(const Prop *q, double x, uint64_t *u, int *n) {
    double low = q->q1, high = q->q2;
    if (!q->qclamp && !(low <= x && x <= high))
        return 0;
    if (low > x)
        x = low;
    if (high < x)
        x = high;
    double f = floor((x - low) / q->q3 + 0.5);
    if (!isfinite(f))
        return 0; /* math.floor raises there: the pure path says so */
    if (f < 0)
        f = 0;
    if (f > q->q4)
        f = q->q4;
    *u = (uint64_t)f;
    *n = q->qb1;
    return 1;
}

/* Coord.encode: has-integer, has-fraction, sign, then the parts present. */
static int coord_bits(const Prop *q, double x, uint64_t *u, int *n) {
    double mag = q->q1, a = fabs(x);
    if (a > mag && !q->qclamp)
        return 0;
    double f = floor((mag < a ? mag : a) * q->q2 + 0.5); /* scale is a power of two: exact */
    uint64_t qv = f > q->q3 ? (uint64_t)q->q3 : (uint64_t)f;
    if (!qv) {
        *u = 0;
        *n = 2;
        return 1;
    }
    uint64_t ip = qv >> q->qb2, fp = qv & (((uint64_t)1 << q->qb2) - 1);
    uint64_t bits = (ip ? 1 : 0) | (fp ? 2 : 0) | (x < 0 ? 4 : 0);
    int at = 3;
    if (ip) {
        bits |= (ip - 1) << at;
        at += q->qb1;
    }
    if (fp) {
        bits |= fp << at;
        at += q->qb2;
    }
    *u = bits;
    *n = at;
    return 1;
}

/* Angle.encode: around the circle, then the low bits of the nearest step. */
static int angle_bits(const Prop *q, double x, uint64_t *u, int *n) {
    double f = floor(fmod(x, q->q1) / q->q2 + 0.5);
    if (!isfinite(f))
        return 0;
    *u = (uint64_t)(int64_t)f & (((uint64_t)1 << q->qb1) - 1);
    *n = q->qb1;
    return 1;
}

/* One quantized component: 1 with its bits *u and width *n, 0 (no error set) when the pure
 * path must look at it (a value the codec refuses, or one this does not read). */
static int quant_one(const Prop *q, PyObject *v, uint64_t *u, int *n) {
    double x;
    if (!finite_number(v, &x))
        return 0;
    switch (q->qkind) {
    case Q_QUANT:
        return quant_grid(q, x, u, n);
    case Q_COORD:
        return coord_bits(q, x, u, n);
    default:
        return angle_bits(q, x, u, n);
    }
}

/* A W_QVEC value's components (borrowed; NULL when it is not a tuple, a list or a value of
 * the vector's type holding exactly count of them, as _float_codecs._components has it). */
static PyObject *const *components_of(const Prop *q, PyObject *value) {
    if (PyTuple_CheckExact(value) || (Py_TYPE(value) == (PyTypeObject *)q->make &&
                                      PyTuple_Check(value))) {
        return PyTuple_GET_SIZE(value) == q->count ? &PyTuple_GET_ITEM(value, 0) : NULL;
    }
    if (PyList_CheckExact(value) && PyList_GET_SIZE(value) == q->count)
        return (PyObject *const *)((PyListObject *)value)->ob_item;
    return NULL;
}

/* A quantized value's bits (W_QUANT, W_QVEC) into words[3] and their *width: 1, or 0 (no
 * error set) when the pure path must look at it. A vector's components go in order from bit
 * 0, each its own width (a Coord's varies), at most 4 x 35 bits. */
static int quant_words(const Prop *q, PyObject *value, uint64_t *words, int *width) {
    uint64_t u;
    int n;
    words[0] = words[1] = words[2] = 0;
    if (q->kind == W_QUANT) {
        if (!quant_one(q, value, &u, &n))
            return 0;
        words[0] = u;
        *width = n;
        return 1;
    }
    PyObject *const *items = components_of(q, value);
    if (!items)
        return 0;
    int at = 0;
    for (int c = 0; c < q->count; c++) {
        if (!quant_one(q, items[c], &u, &n))
            return 0;
        int shift = at & 63;
        words[at >> 6] |= u << shift;
        if (shift + n > 64)
            words[(at >> 6) + 1] |= u >> (64 - shift);
        at += n;
    }
    *width = at;
    return 1;
}

/* quant_words's bits as a new int, or NULL with no error set when the pure path must look. */
static PyObject *quant_bits(const Prop *q, PyObject *value, int *width) {
    uint64_t words[3];
    if (!quant_words(q, value, words, width))
        return NULL;
    if (*width <= 64)
        return PyLong_FromUnsignedLongLong(words[0]);
    unsigned char buf[24];
    size_t nbytes = (size_t)(*width + 7) >> 3;
    for (size_t b = 0; b < nbytes; b++)
        buf[b] = (unsigned char)(words[b >> 3] >> (8 * (b & 7)));
    return long_from_le(buf, nbytes);
}

/* The bits of value for q's fast kinds (a new int) and their *width, or NULL with no error
 * set when the value is not one the fast path takes. */
static PyObject *fast_bits(const Prop *q, PyObject *value, int *width) {
    unsigned char buf[32];
    size_t n = 0;
    uint64_t u = 0;
    if (q->kind == W_QUANT || q->kind == W_QVEC)
        return quant_bits(q, value, width);
    if (!fast_pack(q, value, buf, &n, &u))
        return NULL;
    if (q->kind == W_VEC || q->kind == W_FLOAT) {
        *width = (int)n * 8;
        return long_from_le(buf, n);
    }
    *width = q->kind == W_BOOL ? 1 : q->bits;
    if (q->kind == W_UINT) {
        Py_INCREF(value); /* the value itself, as the codec gives it */
        return value;
    }
    return PyLong_FromUnsignedLongLong(u);
}

/* ---- the write ------------------------------------------------------------------------ */

/* d[key] as a new reference, or NULL with KeyError (as d[key] in Python). */
static PyObject *item(PyObject *d, PyObject *key) {
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (!v) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    Py_INCREF(v);
    return v;
}

/* a != b, as Python's operator (no identity shortcut but for exact ints). */
static int not_equal(PyObject *a, PyObject *b) {
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b))
        return PyObject_RichCompareBool(a, b, Py_NE);
    PyObject *r = PyObject_RichCompare(a, b, Py_NE);
    if (!r)
        return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* self's dirty marks after property i changed from old in world: _net_write's last lines. */
static int mark_dirty(PyObject *self, PyObject *d, PyObject *world, const Prop *q, PyObject *old) {
    int rc = -1;
    PyObject *dirty = NULL, *flag = NULL, *now = NULL, *list = NULL, *before = NULL;
    if (!(dirty = item(d, s_dirty)))
        goto done;
    int any = PyObject_IsTrue(dirty);
    if (any < 0)
        goto done;
    if (!any) {
        if (!(list = PyObject_GetAttr(world, s_dirty_list)))
            goto done;
        if (PyList_CheckExact(list)) {
            if (PyList_Append(list, self))
                goto done;
        } else {
            PyObject *r = PyObject_CallMethodOneArg(list, s_append, self);
            if (!r)
                goto done;
            Py_DECREF(r);
        }
        if (!(before = PyDict_New()) || PyDict_SetItem(before, q->index, old) ||
            PyDict_SetItem(d, s_before, before))
            goto done;
    } else {
        int overflow = 1, set;
        long long small = -1;
        if (PyLong_CheckExact(dirty) && q->at < 62) /* the mask in a machine word */
            small = PyLong_AsLongLongAndOverflow(dirty, &overflow);
        if (!overflow && small >= 0) {
            set = (int)(small >> q->at) & 1;
        } else {
            PyErr_Clear();
            PyObject *shifted = PyNumber_Rshift(dirty, q->index);
            flag = shifted ? PyNumber_And(shifted, k_one) : NULL;
            Py_XDECREF(shifted);
            if ((set = flag ? PyObject_IsTrue(flag) : -1) < 0)
                goto done;
        }
        if (!set) {
            if (!(before = item(d, s_before)) || PyObject_SetItem(before, q->index, old))
                goto done;
        }
        if (!overflow && small >= 0)
            now = PyLong_FromLongLong(small | 1LL << q->at);
    }
    if (!now && !(now = PyNumber_Or(dirty, q->mask)))
        goto done;
    if (PyDict_SetItem(d, s_dirty, now))
        goto done;
    rc = 0;
done:
    Py_XDECREF(dirty);
    Py_XDECREF(flag);
    Py_XDECREF(now);
    Py_XDECREF(list);
    Py_XDECREF(before);
    return rc;
}

/* Store value and its encoding (bits, width) as property q of self: _net_write after its
 * encode, line for line (out of a world, the value alone). */
static int store(PyObject *self, PyObject *d, const Prop *q, PyObject *value, PyObject *bits,
                 PyObject *width) {
    int rc = -1, ne;
    PyObject *vals = NULL, *world = NULL, *held = NULL, *old = NULL, *widths = NULL, *was = NULL;
    if (!(vals = item(d, s_vals)) || PyObject_SetItem(vals, q->index, value))
        goto done;
    if (!(world = item(d, s_world)))
        goto done;
    if (world == Py_None) {
        rc = 0;
        goto done;
    }
    if (!(held = item(d, s_bits)) || !(old = PyObject_GetItem(held, q->index)))
        goto done;
    if ((ne = not_equal(bits, old)) < 0)
        goto done;
    if (!ne) {
        if (!(widths = item(d, s_widths)) || !(was = PyObject_GetItem(widths, q->index)))
            goto done;
        if ((ne = not_equal(width, was)) < 0)
            goto done;
        Py_CLEAR(widths);
    }
    if (ne) {
        if (PyObject_SetItem(held, q->index, bits) || !(widths = item(d, s_widths)) ||
            PyObject_SetItem(widths, q->index, width) || mark_dirty(self, d, world, q, old))
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(vals);
    Py_XDECREF(world);
    Py_XDECREF(held);
    Py_XDECREF(old);
    Py_XDECREF(widths);
    Py_XDECREF(was);
    return rc;
}

static PyObject *pure(PyObject *self, PyObject *name, PyObject *value) {
    return PyObject_CallFunctionObjArgs(g_pure, self, name, value, NULL);
}

/* The property of self's plain networked property name, with *owner (a new reference) the
 * plan's capsule that holds it; or NULL (no error set) when the write is not the fast path's:
 * then the pure __setattr__ does it. */
static const Prop *fast_prop(PyObject *self, PyObject *d, PyObject *name, PyObject **owner) {
    *owner = NULL;
    PyObject *root = PyDict_GetItemWithError(d, s_root);
    PyObject *prefix = root == self ? PyDict_GetItemWithError(d, s_prefix) : NULL;
    if (!prefix || !PyUnicode_CheckExact(prefix) || PyUnicode_GET_LENGTH(prefix) != 0)
        return NULL;
    PyObject *layout = PyDict_GetItemWithError(d, s_layout);
    if (!layout)
        return NULL;
    Py_INCREF(layout); /* plan_for may run Python code */
    PyObject *capsule = plan_for(layout);
    Py_DECREF(layout);
    if (!capsule)
        return NULL;
    Plan *plan = PyCapsule_GetPointer(capsule, PLAN_NAME);
    PyObject *i = NULL;
    if (plan->cls == (PyObject *)Py_TYPE(self) &&
        PyDict_GetItemWithError(d, s_index) == plan->index)
        i = PyDict_GetItemWithError(plan->names, name);
    if (!i) {
        Py_DECREF(capsule);
        return NULL;
    }
    *owner = capsule;
    return &plan->props[PyLong_AsSsize_t(i)];
}

/* 1 when configure() gave the pure path's __setattr__; otherwise 0 with RuntimeError set. */
static int configured(void) {
    if (g_pure)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "_cwrite.configure() was not called");
    return 0;
}

static PyObject *net_write(PyObject *self, PyObject *name, PyObject *value) {
    if (!configured())
        return NULL;
    if (!PyUnicode_CheckExact(name))
        return pure(self, name, value);
    PyObject *d = PyObject_GenericGetDict(self, NULL);
    if (!d || !PyDict_CheckExact(d)) {
        Py_XDECREF(d);
        PyErr_Clear();
        return pure(self, name, value);
    }
    PyObject *result = NULL, *bits = NULL, *width = NULL, *pair = NULL, *owner = NULL;
    const Prop *q = fast_prop(self, d, name, &owner);
    if (!q) {
        if (!PyErr_Occurred())
            result = pure(self, name, value);
        goto done;
    }
    int nbits;
    if (q->kind != W_WHOLE && (bits = fast_bits(q, value, &nbits)) != NULL) {
        width = PyLong_FromLong(nbits);
    } else {
        if (PyErr_Occurred())
            goto done;
        pair = PyObject_CallMethodOneArg(q->codec, s_encode, value);
        if (!pair || !PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            /* a refused value: the pure path encodes it again and names entity, class and
             * property in its error (so does an odd result, which it unpacks as Python does) */
            if (!pair && !PyErr_ExceptionMatches(g_encode_error))
                goto done;
            PyErr_Clear();
            result = pure(self, name, value);
            goto done;
        }
        bits = PyTuple_GET_ITEM(pair, 0);
        width = PyTuple_GET_ITEM(pair, 1);
        Py_INCREF(bits);
        Py_INCREF(width);
    }
    if (width && !store(self, d, q, value, bits, width)) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    Py_DECREF(d);
    Py_XDECREF(owner);
    Py_XDECREF(bits);
    Py_XDECREF(width);
    Py_XDECREF(pair);
    return result;
}

/* ---- detached entities --------------------------------------------------------------- */

/* A detached entity (out of every world: a multiplayer node's state) keeps only its values,
 * so its class can be a subclass (_write_path.detached_class) that also holds the entity's
 * _net_vals list in a slot, and whose plain networked properties are Fields: C descriptors
 * that read that list and write it after the same checks as the fast path above, without
 * the bits. A write then touches the entity and its list, not its __dict__ and the plan. A
 * value a Field does not take (another type, out of range, a codec's refusal) goes to the
 * pure __setattr__, which stores it in the same list or raises its error. */
typedef struct {
    PyObject_HEAD
    PyObject *plan;     /* strong: the capsule holding q */
    const Prop *q;      /* the property's checks and flat index */
    PyObject *name;     /* strong: the property's name */
    PyObject *fallback; /* strong: the Prop it replaces (the class's attribute, and reads of
                         * an entity whose slot holds no list) */
    Py_ssize_t offset;  /* where an instance keeps its values list */
} Field;

static PyTypeObject FieldType;

static void field_dealloc(PyObject *o) {
    Field *f = (Field *)o;
    Py_XDECREF(f->plan);
    Py_XDECREF(f->name);
    Py_XDECREF(f->fallback);
    Py_TYPE(o)->tp_free(o);
}

/* self's values list if it holds one long enough for f, else NULL (borrowed). */
static PyObject *field_values(Field *f, PyObject *self) {
    PyObject *vals = *(PyObject **)((char *)self + f->offset);
    if (vals && PyList_CheckExact(vals) && f->q->at < PyList_GET_SIZE(vals))
        return vals;
    return NULL;
}

static PyObject *field_get(PyObject *o, PyObject *self, PyObject *type) {
    Field *f = (Field *)o;
    PyObject *vals = self ? field_values(f, self) : NULL;
    if (!vals) {
        descrgetfunc get = Py_TYPE(f->fallback)->tp_descr_get;
        if (!get) {
            Py_INCREF(f->fallback);
            return f->fallback;
        }
        return get(f->fallback, self, type);
    }
    PyObject *value = PyList_GET_ITEM(vals, f->q->at);
    Py_INCREF(value);
    return value;
}

/* Whether x packs as q's IEEE component (and as a float32 when q is wide): what pack()
 * refuses, without the bytes a detached entity never keeps. A float32 is CPython's own test
 * in PyFloat_Pack4 (finite, but infinite once rounded to a float); a float64 always packs;
 * a half is PyFloat_Pack2's. */
static int half_fits(double x) {
    unsigned char scratch[2];
    if (PyFloat_Pack2(x, (char *)scratch, 1)) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static inline int component_fits(const Prop *q, double x) {
    if (q->code == 'e' && !half_fits(x))
        return 0;
    if (q->code == 'f' || q->wide) {
        float y = (float)x;
        if (isinf(y) && !isinf(x))
            return 0;
    }
    return 1;
}

/* fast_pack's answer for an IEEE vector or float, by component_fits. */
static int ieee_takes(const Prop *q, PyObject *value) {
    if (q->kind == W_FLOAT)
        return PyFloat_CheckExact(value) && component_fits(q, PyFloat_AS_DOUBLE(value));
    if (Py_TYPE(value) != (PyTypeObject *)q->make || !PyTuple_Check(value) ||
        PyTuple_GET_SIZE(value) != q->count)
        return 0;
    for (int c = 0; c < q->count; c++) {
        PyObject *item = PyTuple_GET_ITEM(value, c);
        if (!PyFloat_CheckExact(item) || !component_fits(q, PyFloat_AS_DOUBLE(item)))
            return 0;
    }
    return 1;
}

/* 1 if q takes value (its codec's encode accepts it), 0 if the pure path must look at it,
 * -1 on an error that is not a refusal. */
static int field_takes(const Prop *q, PyObject *value) {
    unsigned char buf[32];
    size_t n;
    uint64_t u;
    if (q->kind == W_VEC || q->kind == W_FLOAT)
        return ieee_takes(q, value);
    if (q->kind == W_QUANT || q->kind == W_QVEC) { /* taken or not: no int made */
        uint64_t words[3];
        int width;
        return quant_words(q, value, words, &width);
    }
    if (q->kind != W_WHOLE)
        return fast_pack(q, value, buf, &n, &u);
    PyObject *pair = PyObject_CallMethodOneArg(q->codec, s_encode, value);
    if (!pair) {
        if (!PyErr_ExceptionMatches(g_encode_error))
            return -1;
        PyErr_Clear();
        return 0;
    }
    int ok = PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2;
    Py_DECREF(pair);
    return ok;
}

static int pure_set(PyObject *self, PyObject *name, PyObject *value) {
    PyObject *r = pure(self, name, value);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static int field_set(PyObject *o, PyObject *self, PyObject *value) {
    Field *f = (Field *)o;
    if (!value) {
        descrsetfunc set = Py_TYPE(f->fallback)->tp_descr_set;
        if (set)
            return set(f->fallback, self, NULL);
        PyErr_Format(PyExc_AttributeError, "cannot delete %U", f->name);
        return -1;
    }
    if (!configured())
        return -1;
    PyObject *vals = field_values(f, self);
    if (vals) {
        int ok = field_takes(f->q, value);
        if (ok < 0)
            return -1;
        if (!ok)
            vals = NULL;
        else if (f->q->kind == W_WHOLE)
            vals = field_values(f, self); /* the codec's encode may have run code */
        if (vals) {
            PyObject *old = PyList_GET_ITEM(vals, f->q->at);
            Py_INCREF(value);
            PyList_SET_ITEM(vals, f->q->at, value);
            Py_DECREF(old);
            return 0;
        }
    }
    return pure_set(self, f->name, value);
}

static PyTypeObject FieldType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gdvariant.replication._cwrite.Field",
    .tp_basicsize = sizeof(Field),
    .tp_dealloc = field_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A plain networked property of a detached entity's class (compiled).",
    .tp_descr_get = field_get,
    .tp_descr_set = field_set,
};

/* A detached class's __setattr__, and its tp_setattro (a write then calls it straight, not
 * through the slot that looks __setattr__ up and calls it as a method: about half of a
 * write's instructions): a Field's name is its write, anything else the pure __setattr__'s,
 * whose own stores go through the class's _net_store (generic_set below): object.__setattr__
 * refuses an object whose class has a C setattro of its own. */
static int detached_setattro(PyObject *self, PyObject *name, PyObject *value) {
    if (!value)
        return PyObject_GenericSetAttr(self, name, NULL);
    if (PyUnicode_CheckExact(name)) {
        PyObject *descr = _PyType_Lookup(Py_TYPE(self), name);
        if (descr && Py_TYPE(descr) == &FieldType)
            return field_set(descr, self, value);
    }
    if (!configured())
        return -1;
    return pure_set(self, name, value);
}

static PyObject *detached_method_setattr(PyObject *self, PyObject *const *args,
                                         Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "__setattr__(name, value) takes 2 arguments");
        return NULL;
    }
    if (detached_setattro(self, args[0], args[1]))
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef detached_setattr_def = {
    "__setattr__", (PyCFunction)(void (*)(void))detached_method_setattr, METH_FASTCALL,
    "A plain networked property of a detached entity is checked and stored (compiled); "
    "every other write is NetClass.__setattr__'s."};

/* detach(cls, slot, plan): make cls (a fresh subclass whose instances keep their values
 * list in the member slot) a detached class: a Field for each name the plan writes, and the
 * compiled __setattr__. */
static PyObject *py_detach(PyObject *module, PyObject *args) {
    PyObject *cls, *slot, *desc;
    if (!PyArg_ParseTuple(args, "O!OO", &PyType_Type, &cls, &slot, &desc))
        return NULL;
    PyTypeObject *tp = (PyTypeObject *)cls;
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) || !PyObject_TypeCheck(slot, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)slot)->d_member->type != T_OBJECT_EX ||
        ((PyMemberDescrObject *)slot)->d_common.d_type != tp) {
        PyErr_SetString(PyExc_TypeError, "detach() needs a class and its own object slot");
        return NULL;
    }
    if (!configured())
        return NULL;
    Py_ssize_t offset = ((PyMemberDescrObject *)slot)->d_member->offset;
    PyObject *capsule = plan_build(desc), *method = NULL;
    if (!capsule)
        return NULL;
    Plan *plan = PyCapsule_GetPointer(capsule, PLAN_NAME);
    Py_ssize_t pos = 0;
    PyObject *key, *i;
    while (PyDict_Next(plan->names, &pos, &key, &i)) {
        PyObject *fallback = PyUnicode_Check(key) ? PyObject_GetAttr(cls, key) : NULL;
        Field *f = fallback ? PyObject_New(Field, &FieldType) : NULL;
        if (!f) {
            Py_XDECREF(fallback);
            goto fail;
        }
        Py_INCREF(capsule);
        f->plan = capsule;
        f->q = &plan->props[PyLong_AsSsize_t(i)];
        Py_INCREF(key);
        f->name = key;
        f->fallback = fallback;
        f->offset = offset;
        int rc = PyObject_SetAttr(cls, key, (PyObject *)f);
        Py_DECREF(f);
        if (rc)
            goto fail;
    }
    if (!(method = PyDescr_NewMethod(tp, &detached_setattr_def)) ||
        PyObject_SetAttrString(cls, "__setattr__", method))
        goto fail;
    Py_DECREF(method);
    tp->tp_setattro = detached_setattro; /* after __setattr__, whose setting sets the slot */
    PyType_Modified(tp);
    Py_DECREF(capsule);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(method);
    Py_DECREF(capsule);
    return NULL;
}

/* ---- module --------------------------------------------------------------------------- */

static PyObject *py_setattr(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "setattr(entity, name, value) takes 3 arguments");
        return NULL;
    }
    return net_write(args[0], args[1], args[2]);
}

/* generic_set(obj, name, value): the generic attribute write, which object.__setattr__ is
 * for an object whose class has no C setattro of its own; a detached class's _net_store. */
static PyObject *py_generic_set(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "generic_set(obj, name, value) takes 3 arguments");
        return NULL;
    }
    if (PyObject_GenericSetAttr(args[0], args[1], args[2]))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *method_setattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "__setattr__(name, value) takes 2 arguments");
        return NULL;
    }
    return net_write(self, args[0], args[1]);
}

static PyMethodDef setattr_def = {
    "__setattr__", (PyCFunction)(void (*)(void))method_setattr, METH_FASTCALL,
    "A networked property is encoded and marked dirty (compiled; the pure-Python "
    "NetClass.__setattr__ is the reference and does every other write)."};

static PyObject *py_descriptor(PyObject *module, PyObject *cls) {
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "descriptor() needs a class");
        return NULL;
    }
    return PyDescr_NewMethod((PyTypeObject *)cls, &setattr_def);
}

/* ---- reads ---------------------------------------------------------------------------- */

/* NetClass's own _net_get and _net_bound (strong), set by getter(): a class whose lookups find
 * others reads through them; and the pure Prop.__get__, for a call with keywords. */
static PyObject *g_net_get, *g_net_bound, *g_pure_get;
static PyObject *s_net_get, *s_net_bound, *s_name, *s_dunder_get;

/* obj's value of the networked property name, read where the pure _net_get reads it (a new
 * reference), or NULL with no error set when the pure _net_get must: an embedded table's view,
 * a class with its own _net_get or _net_bound, an entity not spawned, anything unusual. */
static PyObject *fast_read(PyObject *obj, PyObject *name) {
    PyTypeObject *tp = Py_TYPE(obj);
    if (_PyType_Lookup(tp, s_net_get) != g_net_get || _PyType_Lookup(tp, s_net_bound) != g_net_bound)
        return NULL;
    PyObject *d = PyObject_GenericGetDict(obj, NULL), *value = NULL;
    if (!d) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *prefix, *index, *i, *vals;
    if (PyDict_CheckExact(d) && PyDict_GetItemWithError(d, s_root) == obj &&
        (prefix = PyDict_GetItemWithError(d, s_prefix)) && PyUnicode_CheckExact(prefix) &&
        PyUnicode_GET_LENGTH(prefix) == 0 && (index = PyDict_GetItemWithError(d, s_index)) &&
        PyDict_CheckExact(index) && (i = PyDict_GetItemWithError(index, name)) &&
        PyLong_CheckExact(i) && (vals = PyDict_GetItemWithError(d, s_vals)) &&
        PyList_CheckExact(vals)) {
        Py_ssize_t at = PyLong_AsSsize_t(i);
        if (at >= 0 && at < PyList_GET_SIZE(vals)) {
            value = PyList_GET_ITEM(vals, at);
            Py_INCREF(value);
        }
    }
    Py_DECREF(d);
    PyErr_Clear(); /* a failed lookup: the pure read meets it again and raises */
    return value;
}

/* Prop.__get__(obj, type): what the pure one returns, obj._net_get(self.name), read in C for a
 * plain entity's plain property. */
static PyObject *prop_get(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                          PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames && PyTuple_GET_SIZE(kwnames)) { /* __get__(obj, objtype=...): the pure one's */
        PyObject *call[4] = {self, NULL, NULL, NULL};
        Py_ssize_t n = nargs + PyTuple_GET_SIZE(kwnames);
        if (!g_pure_get || n > 3) {
            PyErr_SetString(PyExc_TypeError, "__get__(obj, objtype=None) takes 1 or 2 arguments");
            return NULL;
        }
        for (Py_ssize_t k = 0; k < n; k++)
            call[k + 1] = args[k];
        return PyObject_Vectorcall(g_pure_get, call, (size_t)nargs + 1, kwnames);
    }
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "__get__(obj, type=None) takes 1 or 2 arguments");
        return NULL;
    }
    PyObject *obj = args[0];
    if (obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    PyObject *name = PyObject_GetAttr(self, s_name);
    if (!name)
        return NULL;
    PyObject *value = g_net_get ? fast_read(obj, name) : NULL;
    if (!value)
        value = PyObject_CallMethodOneArg(obj, s_net_get, name);
    Py_DECREF(name);
    return value;
}

static PyMethodDef get_def = {
    "__get__", (PyCFunction)(void (*)(void))prop_get, METH_FASTCALL | METH_KEYWORDS,
    "A networked property's value: the object written (compiled; the pure-Python Prop.__get__ "
    "is the reference)."};

static PyObject *py_getter(PyObject *module, PyObject *args) {
    PyObject *prop_cls, *entity_cls;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &prop_cls, &PyType_Type, &entity_cls))
        return NULL;
    PyObject *get = _PyType_Lookup((PyTypeObject *)entity_cls, s_net_get);
    PyObject *bound = _PyType_Lookup((PyTypeObject *)entity_cls, s_net_bound);
    PyObject *pure = _PyType_Lookup((PyTypeObject *)prop_cls, s_dunder_get);
    if (!get || !bound || !pure || !PyFunction_Check(pure)) {
        PyErr_SetString(PyExc_TypeError,
                        "getter() needs a class with _net_get and _net_bound, and one whose "
                        "__get__ is the pure one");
        return NULL;
    }
    Py_INCREF(pure);
    Py_XSETREF(g_pure_get, pure);
    Py_INCREF(get);
    Py_XSETREF(g_net_get, get);
    Py_INCREF(bound);
    Py_XSETREF(g_net_bound, bound);
    return PyDescr_NewMethod((PyTypeObject *)prop_cls, &get_def);
}

static PyObject *py_configure(PyObject *module, PyObject *args) {
    PyObject *pure_setattr, *plan_of, *encode_error;
    if (!PyArg_ParseTuple(args, "OOO", &pure_setattr, &plan_of, &encode_error))
        return NULL;
    if (!PyCallable_Check(pure_setattr) || !PyCallable_Check(plan_of) ||
        !PyExceptionClass_Check(encode_error)) {
        PyErr_SetString(PyExc_TypeError, "configure() needs two callables and an exception");
        return NULL;
    }
    Py_INCREF(pure_setattr);
    Py_XSETREF(g_pure, pure_setattr);
    Py_INCREF(plan_of);
    Py_XSETREF(g_plan_of, plan_of);
    Py_INCREF(encode_error);
    Py_XSETREF(g_encode_error, encode_error);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", py_configure, METH_VARARGS,
     "configure(pure_setattr, plan_of, encode_error): the pure __setattr__ (for every write "
     "the compiled one does not do), _write_path.plan and EncodeError."},
    {"setattr", (PyCFunction)(void (*)(void))py_setattr, METH_FASTCALL,
     "setattr(entity, name, value): NetClass.__setattr__, compiled."},
    {"detach", py_detach, METH_VARARGS,
     "detach(cls, slot, plan): make cls, a fresh NetClass subclass whose instances keep their "
     "_net_vals list in the member slot, write its plain properties in C (plan: "
     "_write_path.plan of its layout)."},
    {"generic_set", (PyCFunction)(void (*)(void))py_generic_set, METH_FASTCALL,
     "generic_set(obj, name, value): the generic attribute write (object.__setattr__'s, for "
     "a detached class, whose C setattro object.__setattr__ refuses)."},
    {"descriptor", py_descriptor, METH_O,
     "descriptor(cls) -> the compiled __setattr__ as a method of cls (to install on it)."},
    {"getter", py_getter, METH_VARARGS,
     "getter(prop_cls, entity_cls) -> the compiled __get__ as a method of prop_cls (to install "
     "on it); entity_cls's _net_get and _net_bound are the ones it reads as."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cwrite",
                                    "The compiled NetClass write path of gdvariant.replication.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__cwrite(void) {
    const char *names[] = {"_net_root",  "_net_prefix", "_net_layout", "_net_index",
                           "_net_vals",  "_net_bits",   "_net_widths", "_net_world",
                           "_net_dirty", "_net_before", "_net_write_plan", "encode",
                           "dirty",      "append",      "_net_get",    "_net_bound",
                           "name",       "__get__"};
    PyObject **slots[] = {&s_root,  &s_prefix, &s_layout, &s_index,  &s_vals,
                          &s_bits,  &s_widths, &s_world,  &s_dirty,  &s_before,
                          &s_plan,  &s_encode, &s_dirty_list, &s_append, &s_net_get,
                          &s_net_bound, &s_name, &s_dunder_get};
    if (!k_one && !(k_one = PyLong_FromLong(1)))
        return NULL;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (!*slots[k] && !(*slots[k] = PyUnicode_InternFromString(names[k])))
            return NULL;
    }
    if (PyType_Ready(&FieldType))
        return NULL;
    return PyModule_Create(&module);
}
