/* The compiled network frame of gdvariant.multiplayer: SceneMultiplayer.sync's full SYNC and
 * delta packets, as bytes, in one call.
 *
 * The pure-Python frame, _pysync.py, is the reference: frame() here takes the same arguments
 * (the replicator's roster of node records, the peers' slots, their SYNC clocks, the encoder
 * tuple), reads and writes the same record caches, and returns the same packets
 * (tests/multiplayer/test_csync.py compares the two over random worlds). A record is a list:
 * [net id, raw values, ALWAYS raw indices, ON_CHANGE raw indices, codecs to convert or None,
 * holders (a tuple the replicator replaces whenever they change), {peer: list of watched
 * bytes last sent}, settled, last SYNC entry or None,
 * then last frame's value of each ALWAYS property, then value, bytes of each ON_CHANGE one].
 * Both caches are the record's own items, updated in place: a frame makes no new containers
 * per node and reads no list but the record and the raw values. Neither holds a float or a
 * vector (its slot holds None): those are encoded again and compared as bytes, so the game's
 * write that replaces one frees it at once.
 * Settled is this frame's alone: when no watched value changed and the record is settled
 * (every holder was sent the current watched bytes; the replicator sets it False when it
 * shows or hides the node), the per-holder comparison is skipped; it is made True after a
 * comparison that reached every holder. Whether no watched value changed is then asked of the
 * values alone (watched_settled), without reading their cached bytes.
 * Each peer's SYNC entries are copied into one buffer of its own as each node's entry is made
 * (while it is in the cache), and cut into packets at the end, where the pure frame keeps a
 * list of entry objects a peer and joins them (docs/multiplayer-performance.md, "The twelfth
 * round: fewer lines a node").
 *
 * Values are written in SceneMultiplayer's compressed form (wire/_variant.py): bool, int,
 * float, and Vector2/Vector3 of finite float32-range components here; an int subclass through
 * the pure encode_compressed; every other value through gdvariant.dumps, which hands it to the
 * live codec core (the compiled one when it is built). Type ids and float rules are Godot 4's
 * single-precision ones, which is what the pure path's dumps() writes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../_cints.h"

/* R_CACHE: where the caches' items start (the ALWAYS values', then the ON_CHANGE pairs) */
enum { R_ID = 0, R_RAW, R_SYNC, R_WATCH, R_CONVERT, R_HOLDERS, R_SENT, R_SETTLED, R_ENTRY, R_CACHE };
enum { E_ENCODE = 0, E_COMPRESSED, E_CONVERT, E_IMMUTABLE, E_VECTOR2, E_VECTOR3, E_SIZE };
#define MAX_SYNC 1350
#define MAX_DELTA 65535
#define MAX_WATCHED 64
#define T_BOOL 1
#define T_INT 2
#define T_FLOAT 3
#define T_VECTOR2 5
#define T_VECTOR3 9
#define FLAG_64 (1u << 16)
#define FEW 16 /* holders kept on the stack; more are allocated */

static PyObject *s_last, *s_state, *s_delta;
static PyObject *s_closing, *s_peer, *s_send; /* hand_over: a link's, its ENet peer's method */

/* A growing byte buffer that starts in its own room on the stack (BUF_ROOM bytes: a node's
 * entry, a watched value or a SYNC packet of up to MAX_SYNC bytes fits), so that a frame
 * allocates nothing for what it builds and copies out; past the room it moves to the heap.
 * buf_init before use, buf_free after. */
#define BUF_ROOM 1408
typedef struct {
    char *buf;
    Py_ssize_t len, cap;
    int called; /* whether a Python encoder ran for what was written (put_encoded) */
    char room[BUF_ROOM];
} Buf;

static void buf_init(Buf *b) {
    b->buf = b->room;
    b->len = 0;
    b->cap = BUF_ROOM;
    b->called = 0;
}

static void buf_free(Buf *b) {
    if (b->buf != b->room)
        PyMem_Free(b->buf);
}

static int buf_grow(Buf *b, Py_ssize_t more) {
    Py_ssize_t cap = b->cap;
    while (cap - b->len < more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *grown = b->buf == b->room ? PyMem_Malloc((size_t)cap) : PyMem_Realloc(b->buf, (size_t)cap);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->buf == b->room)
        memcpy(grown, b->room, (size_t)b->len);
    b->buf = grown;
    b->cap = cap;
    return 0;
}

/* n more bytes at the end of b, to be written by the caller (NULL: no memory). */
static inline char *buf_take(Buf *b, Py_ssize_t n) {
    if (b->cap - b->len < n && buf_grow(b, n) < 0)
        return NULL;
    char *at = b->buf + b->len;
    b->len += n;
    return at;
}

static inline int buf_put(Buf *b, const void *data, Py_ssize_t n) {
    char *at = buf_take(b, n);
    if (at == NULL)
        return -1;
    memcpy(at, data, (size_t)n);
    return 0;
}

/* A slot's SYNC entries of a frame, back to back, as each node's entry is made (cut into
 * packets at the end, when the slot's clock is read): one growing heap buffer a peer, written
 * while the entry is in the cache, instead of a list of entry objects read again to pack. */
typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} Out;

#define OUT_FIRST 512

static inline int out_put(Out *o, const char *data, Py_ssize_t n) {
    if (o->cap - o->len < n) {
        Py_ssize_t cap = o->cap ? o->cap : OUT_FIRST;
        while (cap - o->len < n) {
            if (cap > PY_SSIZE_T_MAX / 2) {
                PyErr_NoMemory();
                return -1;
            }
            cap *= 2;
        }
        char *grown = PyMem_Realloc(o->buf, (size_t)cap);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        o->buf = grown;
        o->cap = cap;
    }
    char *to = o->buf + o->len;
    if (n >= 16 && n <= 32) { /* most entries: two fixed 16-byte moves (overlapping), no call */
        memcpy(to, data, 16);
        memcpy(to + n - 16, data + n - 16, 16);
    } else {
        memcpy(to, data, (size_t)n);
    }
    o->len += n;
    return 0;
}

/* Little-endian stores: one move where the machine is little-endian (a byte loop is not
 * merged into one by every compiler), a byte at a time elsewhere. */
static inline void put_u32(char *p, uint32_t v) {
#if PY_LITTLE_ENDIAN
    memcpy(p, &v, 4);
#else
    for (int i = 0; i < 4; i++)
        p[i] = (char)(v >> (8 * i));
#endif
}

static inline void put_u64(char *p, uint64_t v) {
#if PY_LITTLE_ENDIAN
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++)
        p[i] = (char)(v >> (8 * i));
#endif
}

/* An index or id held as an int: a small exact int (every index a record holds) read in
 * place (../_cints.h), anything else through PyLong_AsSsize_t (its errors included). */
static inline Py_ssize_t index_of(PyObject *o) {
    long long v;
    return small_int(o, &v) ? (Py_ssize_t)v : PyLong_AsSsize_t(o);
}

/* The float32 bits of d, as a C cast narrows it. */
static inline uint32_t f32_bits(double d) {
    float f = (float)d;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
}

/* A component Godot 4 narrows to float32 exactly as a C cast does: finite, in range (the
 * one comparison is false for an infinity and a NaN). */
static inline int narrowable(PyObject *c) {
    return PyFloat_CheckExact(c) && fabs(PyFloat_AS_DOUBLE(c)) <= FLT_MAX;
}

/* Append the bytes a Python encoder returned. */
static int put_encoded(Buf *b, PyObject *data) {
    b->called = 1;
    if (data == NULL)
        return -1;
    if (!PyBytes_Check(data)) {
        PyErr_Format(PyExc_TypeError, "an encoder returned %.100s, not bytes",
                     Py_TYPE(data)->tp_name);
        Py_DECREF(data);
        return -1;
    }
    int rc = buf_put(b, PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data));
    Py_DECREF(data);
    return rc;
}

/* Append what encoder(v) returns; v (which the caller may only borrow) is held meanwhile. */
static int put_called(Buf *b, PyObject *encoder, PyObject *v) {
    Py_INCREF(v);
    PyObject *data = PyObject_CallOneArg(encoder, v);
    Py_DECREF(v);
    return put_encoded(b, data);
}

/* Whether a Vector2 or Vector3 v (a tuple, comps its type's components) has that many
 * components, each narrowing to float32 as Godot 4 narrows it. */
static inline int narrow_vector(PyObject *v, Py_ssize_t comps) {
    return PyTuple_GET_SIZE(v) == comps && narrowable(PyTuple_GET_ITEM(v, 0)) &&
           narrowable(PyTuple_GET_ITEM(v, 1)) && (comps == 2 || narrowable(PyTuple_GET_ITEM(v, 2)));
}

/* Such a vector's type word and float32 components written at `at` (4 + 4 * comps bytes):
 * the one place both writers below put this wire form. */
static inline void write_vector(char *at, PyObject *v, Py_ssize_t comps) {
    put_u32(at, comps == 2 ? T_VECTOR2 : T_VECTOR3);
    put_u32(at + 4, f32_bits(PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(v, 0))));
    put_u32(at + 8, f32_bits(PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(v, 1))));
    if (comps == 3)
        put_u32(at + 12, f32_bits(PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(v, 2))));
}

/* One value in the compressed form, appended to b: each form's bytes taken at once and
 * written in place (v may be borrowed: it is held while Python code runs). */
static int put_value(Buf *b, PyObject *v, PyObject *enc) {
    char *at;
    PyTypeObject *type = Py_TYPE(v);
    Py_ssize_t comps = type == (PyTypeObject *)PyTuple_GET_ITEM(enc, E_VECTOR2)   ? 2
                       : type == (PyTypeObject *)PyTuple_GET_ITEM(enc, E_VECTOR3) ? 3
                                                                                  : 0;
    if (comps) { /* first: the value a frame writes most */
        if (narrow_vector(v, comps)) {
            if ((at = buf_take(b, 4 + 4 * comps)) == NULL)
                return -1;
            write_vector(at, v, comps);
            return 0;
        }
        return put_called(b, PyTuple_GET_ITEM(enc, E_ENCODE), v);
    }
    if (v == Py_True || v == Py_False) {
        if ((at = buf_take(b, 1)) == NULL)
            return -1;
        at[0] = (char)(T_BOOL | (v == Py_True ? 0x80 : 0));
        return 0;
    }
    if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (n == -1 && PyErr_Occurred())
            return -1;
        if (!overflow) {
            int mode = n >= INT8_MIN && n <= INT8_MAX     ? 0
                       : n >= INT16_MIN && n <= INT16_MAX ? 1
                       : n >= INT32_MIN && n <= INT32_MAX ? 2
                                                          : 3;
            char tmp[8];
            if ((at = buf_take(b, 1 + (1 << mode))) == NULL)
                return -1;
            at[0] = (char)(T_INT | mode << 6);
            put_u64(tmp, (uint64_t)n);
            memcpy(at + 1, tmp, (size_t)1 << mode);
            return 0;
        }
    } else if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        if (isinf(d) || (!isnan(d) && fabs(d) <= FLT_MAX && (double)(float)d == d)) {
            if ((at = buf_take(b, 8)) == NULL)
                return -1;
            put_u32(at, T_FLOAT);
            put_u32(at + 4, f32_bits(d));
            return 0;
        }
        uint64_t bits;
        memcpy(&bits, &d, 8);
        if ((at = buf_take(b, 12)) == NULL)
            return -1;
        put_u32(at, T_FLOAT | FLAG_64);
        put_u64(at + 4, bits);
        return 0;
    } else if (!PyLong_Check(v)) {
        return put_called(b, PyTuple_GET_ITEM(enc, E_ENCODE), v);
    }
    /* ints past 64 bits (the error) and int subclasses: the pure compressed form */
    return put_called(b, PyTuple_GET_ITEM(enc, E_COMPRESSED), v);
}

/* put_value, with a Vector2 of narrowable components (what the bench game and most 2D games
 * sync every frame) written here, inline, without the call. */
static inline int put_value_fast(Buf *b, PyObject *v, PyObject *enc) {
    if (Py_TYPE(v) == (PyTypeObject *)PyTuple_GET_ITEM(enc, E_VECTOR2) && narrow_vector(v, 2) &&
        b->cap - b->len >= 12) {
        write_vector(b->buf + b->len, v, 2);
        b->len += 12;
        return 0;
    }
    return put_value(b, v, enc);
}

/* The parts of a record a frame reads, held (strong references) while encoders run, and
 * where its ON_CHANGE pairs start. */
typedef struct {
    PyObject *raw, *sync, *watch, *convert;
    Py_ssize_t watched_at;
} Parts;

/* raw[index] as Godot holds it (godot_value when the record says so): a new reference. */
static PyObject *read_value(Parts *r, PyObject *index, PyObject *enc) {
    Py_ssize_t i = index_of(index);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= PyList_GET_SIZE(r->raw)) {
        PyErr_Format(PyExc_IndexError, "raw index %zd out of range", i);
        return NULL;
    }
    PyObject *value = PyList_GET_ITEM(r->raw, i);
    Py_INCREF(value);
    if (r->convert == Py_None)
        return value;
    if (!PyTuple_Check(r->convert) || i >= PyTuple_GET_SIZE(r->convert)) {
        Py_DECREF(value);
        PyErr_SetString(PyExc_TypeError, "a record's codecs must be a tuple by raw index");
        return NULL;
    }
    PyObject *codec = PyTuple_GET_ITEM(r->convert, i);
    if (codec == Py_None)
        return value;
    PyObject *args[2] = {codec, value};
    PyObject *held = PyObject_Vectorcall(PyTuple_GET_ITEM(enc, E_CONVERT), args, 2, NULL);
    Py_DECREF(value);
    return held;
}

/* raw[index] itself, bounds checked: borrowed from raw (which the caller holds), for a use
 * that runs no Python code. */
static inline PyObject *raw_item(Parts *r, PyObject *index) {
    Py_ssize_t i = index_of(index);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= PyList_GET_SIZE(r->raw)) {
        PyErr_Format(PyExc_IndexError, "raw index %zd out of range", i);
        return NULL;
    }
    return PyList_GET_ITEM(r->raw, i);
}

/* raw[index] itself, bounds checked: a new reference. */
static inline PyObject *raw_value(Parts *r, PyObject *index) {
    PyObject *value = raw_item(r, index);
    Py_XINCREF(value);
    return value;
}

static int is_immutable(PyObject *v, PyObject *enc) {
    return PySet_Contains(PyTuple_GET_ITEM(enc, E_IMMUTABLE), (PyObject *)Py_TYPE(v));
}

/* What a cache keeps of a raw value (borrowed): the value, or None for a float or a vector,
 * which are encoded again and compared as bytes, so that the write replacing one frees it. */
static PyObject *held(PyObject *v, PyObject *enc) {
    PyTypeObject *type = Py_TYPE(v);
    if (type == &PyFloat_Type || type == (PyTypeObject *)PyTuple_GET_ITEM(enc, E_VECTOR2) ||
        type == (PyTypeObject *)PyTuple_GET_ITEM(enc, E_VECTOR3))
        return Py_None;
    return v;
}

/* Whether a bytes object holds the n bytes at data. */
static int same_bytes(PyObject *bytes, const char *data, Py_ssize_t n) {
    return PyBytes_Check(bytes) && PyBytes_GET_SIZE(bytes) == n &&
           memcmp(PyBytes_AS_STRING(bytes), data, (size_t)n) == 0;
}

/* Whether last frame's SYNC entry (the record's R_ENTRY, its values after R_CACHE) still
 * holds: every value the same immutable object (a slot of None holds no value). */
static int entry_reusable(PyObject *rec, Parts *r, PyObject *enc) {
    Py_ssize_t n = PyTuple_GET_SIZE(r->sync);
    if (PyList_GET_SIZE(rec) < R_CACHE + n || !PyBytes_Check(PyList_GET_ITEM(rec, R_ENTRY)))
        return 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *v = raw_item(r, PyTuple_GET_ITEM(r->sync, k)); /* a type's hash runs no Python */
        if (v == NULL)
            return -1;
        int same = v == PyList_GET_ITEM(rec, R_CACHE + k) && v != Py_None;
        if (same)
            same = is_immutable(v, enc);
        if (same <= 0)
            return same;
    }
    return 1;
}

/* Store value at cache[k] (a list of at least k + 1), dropping what was there. */
static inline int store(PyObject *cache, Py_ssize_t k, PyObject *value) {
    if (!PyList_Check(cache) || k >= PyList_GET_SIZE(cache)) {
        PyErr_SetString(PyExc_TypeError, "a record's cache changed size");
        return -1;
    }
    PyObject *old = PyList_GET_ITEM(cache, k);
    if (old == value) /* most frames: None stays None, the record's line is not written */
        return 0;
    Py_INCREF(value);
    PyList_SET_ITEM(cache, k, value);
    Py_XDECREF(old);
    return 0;
}

/* rec[k] (borrowed), or None when the record no longer has it (Python code ran). */
static PyObject *item_or_none(PyObject *rec, Py_ssize_t k) {
    return k < PyList_GET_SIZE(rec) ? PyList_GET_ITEM(rec, k) : Py_None;
}

/* The record's SYNC entry (u32 id, u32 size, values): last frame's bytes object when it still
 * holds (a new reference), else made in b (the caller's, initialised) and then, when every value
 * is held for the next frame's identity check, kept as a bytes object (last frame's when the
 * bytes are the same) and returned; when a value is not held (a float or a vector, which is
 * encoded again each frame) no entry object is made or kept: the record's R_ENTRY becomes None
 * and Py_None (borrowed) says the entry is in b. The caches after R_CACHE (None for a value not
 * held) are updated in place. NULL on an error. */
static PyObject *sync_entry(PyObject *rec, Parts *r, uint32_t net_id, PyObject *enc, Buf *b) {
    PyObject *entry = NULL;
    int reuse = entry_reusable(rec, r, enc);
    if (reuse) {
        entry = reuse < 0 ? NULL : PyList_GET_ITEM(rec, R_ENTRY);
        Py_XINCREF(entry);
        return entry;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(r->sync);
    int all_held = 1;
    /* each raw value as it was encoded (borrowed from raw, which the caller holds), to be
     * kept below without reading its index again while no Python code ran since */
    PyObject *encoded[FEW];
    int plain = r->convert == Py_None && n <= FEW;
    b->len = 8; /* the id and size, written last */
    b->called = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *index = PyTuple_GET_ITEM(r->sync, k);
        int rc;
        if (plain) { /* raw's item as it is: put_value holds it while an encoder runs */
            PyObject *value = encoded[k] = raw_item(r, index);
            rc = value == NULL ? -1 : put_value_fast(b, value, enc);
        } else {
            PyObject *value = read_value(r, index, enc);
            rc = value == NULL ? -1 : put_value(b, value, enc);
            Py_XDECREF(value);
        }
        if (rc < 0)
            return NULL;
    }
    plain &= !b->called;
    if (b->len - 8 > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a state over 4 GiB");
        return NULL;
    }
    put_u32(b->buf, net_id);
    put_u32(b->buf + 4, (uint32_t)(b->len - 8));
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *original = plain ? encoded[k] : raw_item(r, PyTuple_GET_ITEM(r->sync, k));
        PyObject *keep = original == NULL ? NULL : held(original, enc);
        if (plain && keep != NULL) {
            /* a store releasing the cache's last reference to its old value may run Python
             * code (a __del__) that changes raw: the values after it are read again */
            PyObject *old = item_or_none(rec, R_CACHE + k);
            if (old != keep && Py_REFCNT(old) == 1)
                plain = 0;
        }
        int rc = keep == NULL ? -1 : store(rec, R_CACHE + k, keep);
        all_held &= keep != Py_None;
        if (rc < 0)
            goto fail;
    }
    if (!all_held) {
        if (store(rec, R_ENTRY, Py_None) < 0)
            return NULL;
        return Py_None;
    }
    if (same_bytes(item_or_none(rec, R_ENTRY), b->buf, b->len)) {
        entry = PyList_GET_ITEM(rec, R_ENTRY);
        Py_INCREF(entry);
    } else {
        entry = PyBytes_FromStringAndSize(b->buf, b->len);
        if (entry == NULL || store(rec, R_ENTRY, entry) < 0)
            goto fail;
    }
    return entry;
fail:
    Py_CLEAR(entry);
    if (PyList_GET_SIZE(rec) > R_ENTRY) /* never reuse a half-made cache */
        (void)store(rec, R_ENTRY, Py_None);
    return NULL;
}

/* Whether a watched value is last frame's: the same immutable object, or an equal int, str
 * or bool (types whose == means equal bytes). */
static inline int unchanged(PyObject *before, PyObject *value, PyObject *enc) {
    int exact_eq = PyLong_CheckExact(value) || PyUnicode_CheckExact(value) || PyBool_Check(value);
    if (before == value && exact_eq)
        return 1; /* what the set and == below would answer, without asking the set */
    if (before == value && value != Py_None) {
        int immutable = is_immutable(value, enc);
        if (immutable != 0)
            return immutable;
    }
    if (Py_TYPE(before) != Py_TYPE(value) || !exact_eq)
        return 0;
    return PyObject_RichCompareBool(before, value, Py_EQ);
}

/* The bytes of watched value k: last frame's, or encoded now (and cached in place, in the
 * record's pair at at = watched_at + 2k, the value None when not held): a new reference,
 * last frame's bytes object when the bytes are the same (*fresh is set only when they
 * differ). */
static PyObject *watched_one(PyObject *rec, Py_ssize_t k, Parts *r, PyObject *enc, int *fresh) {
    PyObject *index = PyTuple_GET_ITEM(r->watch, k);
    PyObject *value = raw_value(r, index), *data = NULL;
    Py_ssize_t at = r->watched_at + 2 * k;
    if (value == NULL)
        return NULL;
    if (at + 1 >= PyList_GET_SIZE(rec)) {
        Py_DECREF(value);
        PyErr_SetString(PyExc_TypeError, "a record's watched cache changed size");
        return NULL;
    }
    PyObject *last = PyList_GET_ITEM(rec, at), *bytes = PyList_GET_ITEM(rec, at + 1);
    if (PyBytes_Check(bytes)) {
        Py_INCREF(last);
        Py_INCREF(bytes);
        int same = unchanged(last, value, enc);
        Py_DECREF(last);
        if (same) {
            if (same < 0)
                Py_CLEAR(bytes);
            Py_DECREF(value);
            return bytes;
        }
        Py_DECREF(bytes);
    }
    PyObject *godot = read_value(r, index, enc);
    Buf b;
    buf_init(&b);
    int rc = godot == NULL ? -1 : put_value(&b, godot, enc);
    Py_XDECREF(godot);
    /* read again: a conversion ran Python code (store() checks the size too) */
    bytes = item_or_none(rec, at + 1);
    if (rc == 0 && same_bytes(bytes, b.len ? b.buf : "", b.len)) {
        data = bytes;
        Py_INCREF(data);
    } else {
        *fresh = 1;
        data = rc < 0 ? NULL : PyBytes_FromStringAndSize(b.len ? b.buf : "", b.len);
    }
    buf_free(&b);
    if (data != NULL &&
        (store(rec, at, held(value, enc)) < 0 || store(rec, at + 1, data) < 0))
        Py_CLEAR(data);
    Py_DECREF(value);
    return data;
}

/* Each watched value's bytes (new references in out[]), *fresh set if any was encoded now
 * (not last frame's); on an error none is left held. */
static int watched(PyObject *rec, Parts *r, PyObject *enc, PyObject **out, int *fresh) {
    Py_ssize_t n = PyTuple_GET_SIZE(r->watch);
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = watched_one(rec, k, r, enc, fresh);
        if (out[k] == NULL) {
            while (k > 0)
                Py_DECREF(out[--k]);
            return -1;
        }
    }
    return 0;
}

/* Append item to the list at lists[slot], made on first use. */
static int append_to(PyObject **lists, Py_ssize_t slot, PyObject *item) {
    if (lists[slot] == NULL && (lists[slot] = PyList_New(0)) == NULL)
        return -1;
    return PyList_Append(lists[slot], item);
}

static int report(PyObject *left_out, PyObject *net_id, Py_ssize_t size, PyObject *what) {
    PyObject *row = Py_BuildValue("(OnO)", net_id, size, what);
    if (row == NULL)
        return -1;
    int rc = PyList_Append(left_out, row);
    Py_DECREF(row);
    return rc;
}

typedef struct {
    uint64_t mask;
    PyObject *delta; /* Py_None: too large */
} Shared;

/* One delta entry (u32 id, u64 mask, u32 size, values): a new reference, or None when the
 * values are over the delta limit (reported). */
static PyObject *delta_entry(PyObject *rec, uint32_t id, uint64_t mask, PyObject **encoded,
                             Py_ssize_t n, PyObject *left_out) {
    Py_ssize_t size = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (mask >> k & 1)
            size += PyBytes_GET_SIZE(encoded[k]);
    if (size > MAX_DELTA) {
        if (report(left_out, item_or_none(rec, R_ID), size + 16, s_delta) < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *delta = PyBytes_FromStringAndSize(NULL, size + 16);
    if (delta == NULL)
        return NULL;
    char *p = PyBytes_AS_STRING(delta);
    put_u32(p, id);
    put_u64(p + 4, mask);
    put_u32(p + 12, (uint32_t)size);
    p += 16;
    for (Py_ssize_t k = 0; k < n; k++)
        if (mask >> k & 1) {
            memcpy(p, PyBytes_AS_STRING(encoded[k]), (size_t)PyBytes_GET_SIZE(encoded[k]));
            p += PyBytes_GET_SIZE(encoded[k]);
        }
    return delta;
}

/* Each target's delta entry of the watched values whose bytes differ from those last sent
 * to it (now recorded as sent); the targets with the same mask share one entry. */
static int deltas_of(PyObject *rec, uint32_t id, PyObject **encoded, Py_ssize_t n,
                     PyObject **peers, Py_ssize_t *slots, Py_ssize_t ntargets, PyObject **deltas,
                     PyObject *left_out) {
    PyObject *sent_by_peer = PyList_GET_ITEM(rec, R_SENT);
    if (!PyDict_Check(sent_by_peer)) {
        PyErr_SetString(PyExc_TypeError, "a record's sent bytes must be a dict");
        return -1;
    }
    Shared *shared = PyMem_Malloc(sizeof(Shared) * (size_t)(ntargets ? ntargets : 1));
    Py_ssize_t nshared = 0;
    int rc = -1;
    if (shared == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(sent_by_peer);
    for (Py_ssize_t t = 0; t < ntargets; t++) {
        PyObject *sent = PyDict_GetItemWithError(sent_by_peer, peers[t]);
        if (sent == NULL) {
            if (PyErr_Occurred())
                goto done;
            sent = PyList_New(n);
            if (sent == NULL)
                goto done;
            for (Py_ssize_t k = 0; k < n; k++) {
                Py_INCREF(Py_None);
                PyList_SET_ITEM(sent, k, Py_None);
            }
            if (PyDict_SetItem(sent_by_peer, peers[t], sent) < 0) {
                Py_DECREF(sent);
                goto done;
            }
        } else {
            Py_INCREF(sent);
        }
        if (!PyList_Check(sent) || PyList_GET_SIZE(sent) != n) {
            Py_DECREF(sent);
            PyErr_SetString(PyExc_TypeError, "a peer's sent bytes must be a list, one per value");
            goto done;
        }
        uint64_t mask = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *was = PyList_GET_ITEM(sent, k), *now = encoded[k];
            if (was == now || (PyBytes_Check(was) && PyBytes_GET_SIZE(was) == PyBytes_GET_SIZE(now) &&
                               memcmp(PyBytes_AS_STRING(was), PyBytes_AS_STRING(now),
                                      (size_t)PyBytes_GET_SIZE(now)) == 0))
                continue;
            mask |= (uint64_t)1 << k;
            Py_INCREF(now);
            PyList_SET_ITEM(sent, k, now);
            Py_DECREF(was);
        }
        Py_DECREF(sent);
        if (!mask)
            continue;
        PyObject *delta = NULL;
        for (Py_ssize_t s = 0; s < nshared; s++)
            if (shared[s].mask == mask)
                delta = shared[s].delta;
        if (delta == NULL) {
            delta = delta_entry(rec, id, mask, encoded, n, left_out);
            if (delta == NULL)
                goto done;
            shared[nshared].mask = mask;
            shared[nshared++].delta = delta;
        }
        if (delta != Py_None && append_to(deltas, slots[t], delta) < 0)
            goto done;
    }
    rc = 0;
done:
    for (Py_ssize_t s = 0; s < nshared; s++)
        Py_DECREF(shared[s].delta);
    PyMem_Free(shared);
    Py_DECREF(sent_by_peer);
    return rc;
}

/* The peers' slots as a frame reads them: the replicator's dict (peer -> slot), which no code
 * changes while a frame runs, and the last peer looked up (held) with its answer: a node's
 * holders are most often the previous node's (a player's nodes spawn together), the very same
 * int object, so its slot is known without a dict lookup. */
typedef struct {
    PyObject *dict;
    Py_ssize_t n;
    PyObject *peer; /* the last peer looked up (a strong reference), or NULL */
    Py_ssize_t slot;
    int found;
} Slots;

/* The clock slot of a peer in the replicator's slots: 1 and *s set, 0 when the peer has no
 * slot, -1 with an error set (a slot that is not an int or lies outside the clocks). */
static int slot_of_peer(Slots *slots, PyObject *peer, Py_ssize_t *s) {
    if (peer == slots->peer) {
        *s = slots->slot;
        return slots->found;
    }
    PyObject *slot = PyDict_GetItemWithError(slots->dict, peer);
    if (slot == NULL)
        return PyErr_Occurred() ? -1 : 0;
    *s = PyLong_AsSsize_t(slot);
    if (*s == -1 && PyErr_Occurred())
        return -1;
    if (*s < 0 || *s >= slots->n) {
        PyErr_Format(PyExc_ValueError, "slot %zd of a peer outside the %zd clocks", *s, slots->n);
        return -1;
    }
    return 1;
}

/* The record's holders that have a slot, in order: peers[] borrowed from the holders, a tuple
 * the caller holds (looking a peer up may run Python code, which cannot change a tuple). */
static Py_ssize_t targets_of(PyObject *holders, Slots *slots, PyObject **peers, Py_ssize_t *slot_of) {
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(holders); i++) {
        PyObject *peer = PyTuple_GET_ITEM(holders, i);
        Py_ssize_t s = 0;
        int found = slot_of_peer(slots, peer, &s);
        if (found < 0)
            return -1;
        if (peer != slots->peer) {
            Py_INCREF(peer);
            Py_XSETREF(slots->peer, peer);
            slots->slot = s;
            slots->found = found;
        }
        if (found) {
            peers[count] = peer;
            slot_of[count++] = s;
        }
    }
    return count;
}

/* The record's SYNC entry, to each target's list (or reported when it is too large). */
static int sync_part(PyObject *rec, Parts *r, uint32_t id, PyObject *enc,
                     Py_ssize_t *slot_of, Py_ssize_t ntargets, Out *entries, PyObject *left_out) {
    Buf b;
    buf_init(&b);
    PyObject *entry = sync_entry(rec, r, id, enc, &b);
    if (entry == NULL) {
        buf_free(&b);
        return -1;
    }
    const char *data = entry == Py_None ? b.buf : PyBytes_AS_STRING(entry);
    Py_ssize_t size = entry == Py_None ? b.len : PyBytes_GET_SIZE(entry);
    int rc = 0;
    if (size - 8 > MAX_SYNC)
        rc = report(left_out, item_or_none(rec, R_ID), size, s_state);
    for (Py_ssize_t t = 0; t < ntargets && rc == 0 && size - 8 <= MAX_SYNC; t++)
        rc = out_put(&entries[slot_of[t]], data, size);
    if (entry != Py_None)
        Py_DECREF(entry);
    buf_free(&b);
    return rc;
}

static int settle(PyObject *rec, PyObject *flag) {
    return store(rec, R_SETTLED, flag);
}

/* A net id held as an int, a u32: a small exact int read in place (../_cints.h), any other
 * through PyLong_AsUnsignedLong (its errors included). Out of line: the frame reads an id
 * this way only for a record's first SYNC entry. */
Py_NO_INLINE static int id_from_int(PyObject *net_id, uint32_t *id) {
    long long small;
    if (small_int(net_id, &small) && small >= 0 && small <= UINT32_MAX) {
        *id = (uint32_t)small;
        return 0;
    }
    unsigned long value = PyLong_AsUnsignedLong(net_id);
    if (value == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    if (value > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a net id is a u32");
        return -1;
    }
    *id = (uint32_t)value;
    return 0;
}

/* The record's net id: the one last frame's SYNC entry was made with when there is one (a
 * record's id never changes: the replicator makes it once), so that the frame does not read
 * the id's int object, a line of its own, for every node; else the int's (id_from_int). */
static int id_of(PyObject *rec, uint32_t *id) {
    PyObject *entry = PyList_GET_ITEM(rec, R_ENTRY);
    if (PyBytes_Check(entry) && PyBytes_GET_SIZE(entry) >= 8) {
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(entry);
        *id = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        return 0;
    }
    return id_from_int(PyList_GET_ITEM(rec, R_ID), id);
}

/* Whether a settled record's watched values are all last frame's (1; 0 when one may have
 * changed or was never encoded, -1 on an error), asked without reading the cached bytes: a
 * cache's bytes slot holds None until the frame stores the bytes there, and unchanged() reads
 * only the two values. A settled record whose values are unchanged sends no delta and needs no
 * bytes, so the frame then touches neither them nor the sent-bytes dict: a node's watched
 * bytes are a line (two when the object straddles one) the frame would read every tick for
 * a check of its type and a reference it drops again. */
static int watched_settled(PyObject *rec, Parts *r, PyObject *enc) {
    Py_ssize_t n = PyTuple_GET_SIZE(r->watch);
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t at = r->watched_at + 2 * k;
        /* sync_part may have run Python code: the full path then checks and raises */
        if (PyList_GET_SIZE(rec) != r->watched_at + 2 * n || PyList_GET_ITEM(rec, at + 1) == Py_None)
            return 0;
        /* both borrowed: unchanged() runs no Python code for the types it compares with == */
        PyObject *value = raw_item(r, PyTuple_GET_ITEM(r->watch, k));
        if (value == NULL)
            return -1;
        int same = unchanged(PyList_GET_ITEM(rec, at), value, enc);
        if (same <= 0)
            return same;
    }
    return 1;
}

/* One record's part of the frame, once its targets are known (every_holder: each holder is
 * one, none lacks a slot). */
static int record_part(PyObject *rec, Parts *r, PyObject *enc, PyObject **peers, Py_ssize_t *slot_of,
                       Py_ssize_t ntargets, int every_holder, Out *entries, PyObject **deltas,
                       PyObject *left_out) {
    uint32_t id;
    if (id_of(rec, &id) < 0)
        return -1;
    if (PyTuple_GET_SIZE(r->sync) && sync_part(rec, r, id, enc, slot_of, ntargets, entries, left_out) < 0)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(r->watch);
    if (n && PyList_GET_ITEM(rec, R_SETTLED) == Py_True) {
        int settled = watched_settled(rec, r, enc);
        if (settled)
            return settled < 0 ? -1 : 0;
    }
    if (n) {
        PyObject *encoded[MAX_WATCHED];
        int fresh = 0, failed = 0;
        if (watched(rec, r, enc, encoded, &fresh) < 0)
            return -1;
        if (fresh || PyList_GET_ITEM(rec, R_SETTLED) != Py_True) {
            /* unsettled while the sent bytes change: an error halfway leaves it so */
            failed = settle(rec, Py_False) < 0 ||
                     deltas_of(rec, id, encoded, n, peers, slot_of, ntargets, deltas, left_out) < 0 ||
                     (every_holder && settle(rec, Py_True) < 0);
        }
        for (Py_ssize_t k = 0; k < n; k++)
            Py_DECREF(encoded[k]);
        if (failed)
            return -1;
    }
    return 0;
}

/* One record's part of the frame. */
static int one_record(PyObject *rec, Slots *slots, PyObject *enc,
                      Out *entries, PyObject **deltas, PyObject *left_out) {
    if (!PyList_Check(rec) || PyList_GET_SIZE(rec) < R_CACHE) {
        PyErr_SetString(PyExc_TypeError, "a roster record must be a list of 9 and its caches");
        return -1;
    }
    Parts r = {PyList_GET_ITEM(rec, R_RAW), PyList_GET_ITEM(rec, R_SYNC), PyList_GET_ITEM(rec, R_WATCH),
               PyList_GET_ITEM(rec, R_CONVERT), 0};
    PyObject *holders = PyList_GET_ITEM(rec, R_HOLDERS);
    if (!PyTuple_Check(holders) || !PyList_Check(r.raw) || !PyTuple_Check(r.sync) ||
        !PyTuple_Check(r.watch)) {
        PyErr_SetString(PyExc_TypeError,
                        "a record's holders must be a tuple, its raw values a list, its indices tuples");
        return -1;
    }
    if (PyTuple_GET_SIZE(r.watch) > MAX_WATCHED) {
        PyErr_SetString(PyExc_ValueError, "at most 64 ON_CHANGE properties");
        return -1;
    }
    r.watched_at = R_CACHE + PyTuple_GET_SIZE(r.sync);
    if (PyList_GET_SIZE(rec) != r.watched_at + 2 * PyTuple_GET_SIZE(r.watch)) {
        PyErr_SetString(PyExc_TypeError, "a record's caches must be one item per ALWAYS value, "
                                         "two per ON_CHANGE one");
        return -1;
    }
    Py_ssize_t nholders = PyTuple_GET_SIZE(holders);
    if (nholders == 0)
        return 0;
    PyObject *few_peers[FEW];
    Py_ssize_t few_slots[FEW];
    int many = nholders > FEW;
    PyObject **peers = many ? PyMem_Malloc(sizeof(PyObject *) * (size_t)nholders) : few_peers;
    Py_ssize_t *slot_of = many ? PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)nholders) : few_slots;
    if (peers == NULL || slot_of == NULL) {
        if (many) {
            PyMem_Free(peers);
            PyMem_Free(slot_of);
        }
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(r.raw);
    Py_INCREF(r.sync);
    Py_INCREF(r.watch);
    Py_INCREF(r.convert);
    Py_INCREF(holders);
    int rc = 0;
    Py_ssize_t ntargets = targets_of(holders, slots, peers, slot_of);
    if (ntargets < 0)
        rc = -1;
    else if (ntargets > 0)
        rc = record_part(rec, &r, enc, peers, slot_of, ntargets, ntargets == nholders, entries,
                         deltas, left_out);
    Py_DECREF(holders);
    Py_DECREF(r.raw);
    Py_DECREF(r.sync);
    Py_DECREF(r.watch);
    Py_DECREF(r.convert);
    if (many) {
        PyMem_Free(peers);
        PyMem_Free(slot_of);
    }
    return rc;
}

/* The packet gathered in b, appended to packets as a bytes object (0; -1 on an error). */
static int append_packet(PyObject *packets, const Buf *b) {
    PyObject *packet = PyBytes_FromStringAndSize(b->buf, b->len);
    int rc = packet == NULL ? -1 : PyList_Append(packets, packet);
    Py_XDECREF(packet);
    return rc;
}

/* items after head, cut into packets of at most limit bytes (an item alone is never cut). */
static PyObject *packed(const char *head, Py_ssize_t head_len, PyObject *items, Py_ssize_t limit) {
    PyObject *packets = PyList_New(0);
    if (packets == NULL || items == NULL)
        return packets;
    Buf b;
    buf_init(&b);
    if (buf_put(&b, head, head_len) < 0)
        goto fail;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        Py_ssize_t size = PyBytes_GET_SIZE(item);
        if (b.len + size > limit && count) {
            if (append_packet(packets, &b) < 0)
                goto fail;
            b.len = head_len;
            count = 0;
        }
        if (buf_put(&b, PyBytes_AS_STRING(item), size) < 0)
            goto fail;
        count++;
    }
    if (count && append_packet(packets, &b) < 0)
        goto fail;
    buf_free(&b);
    return packets;
fail:
    buf_free(&b);
    Py_DECREF(packets);
    return NULL;
}

/* A slot's SYNC entries (back to back in o, each u32 id | u32 size | values) after head, cut
 * into packets of at most MAX_SYNC bytes as packed() cuts a list of them. */
static PyObject *packed_syncs(const char *head, Py_ssize_t head_len, const Out *o) {
    PyObject *packets = PyList_New(0);
    if (packets == NULL || o->len == 0)
        return packets;
    Buf b;
    buf_init(&b);
    if (buf_put(&b, head, head_len) < 0)
        goto fail;
    Py_ssize_t count = 0;
    for (Py_ssize_t at = 0; at < o->len;) {
        const unsigned char *p = (const unsigned char *)o->buf + at + 4;
        Py_ssize_t size = 8 + (Py_ssize_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                           (uint32_t)p[3] << 24);
        if (b.len + size > MAX_SYNC && count) {
            if (append_packet(packets, &b) < 0)
                goto fail;
            b.len = head_len;
            count = 0;
        }
        if (buf_put(&b, o->buf + at, size) < 0)
            goto fail;
        at += size;
        count++;
    }
    if (append_packet(packets, &b) < 0)
        goto fail;
    buf_free(&b);
    return packets;
fail:
    buf_free(&b);
    Py_DECREF(packets);
    return NULL;
}

/* (slot, SYNC packets at the clock's next time, delta packets) of one slot. */
static PyObject *slot_sends(Py_ssize_t slot, PyObject *clock, const Out *entries, PyObject *deltas) {
    PyObject *last = PyObject_GetAttr(clock, s_last);
    if (last == NULL)
        return NULL;
    long time = PyLong_AsLong(last);
    Py_DECREF(last);
    if (time == -1 && PyErr_Occurred())
        return NULL;
    time = ((time + 1) % 65536 + 65536) % 65536;
    char head[3] = {6, (char)(time & 0xff), (char)(time >> 8)};
    PyObject *syncs = packed_syncs(head, 3, entries);
    PyObject *changes = syncs == NULL ? NULL : packed("\x16", 1, deltas, MAX_DELTA);
    PyObject *at = changes == NULL ? NULL : PyLong_FromSsize_t(slot);
    PyObject *row = at == NULL ? NULL : PyTuple_Pack(3, at, syncs, changes);
    Py_XDECREF(at);
    Py_XDECREF(syncs);
    Py_XDECREF(changes);
    return row;
}

static int tuple_type(PyObject *t) {
    return PyType_Check(t) && PyType_IsSubtype((PyTypeObject *)t, &PyTuple_Type);
}

/* ---- prefetching ----------------------------------------------------------------------
 * Live, a tick finds the records out of the caches (33 ms of event loop, sockets and the
 * other core's work since the last one), and each record is a dozen small objects reached
 * pointer by pointer: the frame waited on memory, one load at a time. So while record i is
 * worked on, the memory of the next ones is asked for in stages, each reading only pointers
 * an earlier stage fetched: the record itself (the roster holds only its pointer), its item
 * array, its items (the caches' among them), their tables and the values they hold. A
 * prefetch never faults and changes nothing; what it fetches is only what one_record will
 * read anyway. */

#define AHEAD_RECORD 16 /* the record itself (its header: the stage below reads its type) */
#define AHEAD_ITEMS 12  /* the record's item array */
#define AHEAD_PARTS 8   /* its items */
#define AHEAD_INNER 4   /* their arrays and tables */
#define AHEAD_HELD 2    /* what those hold */
#define AHEAD_INSIDE 1 /* inside last frame's values, when the frame frees them */
#define AHEAD_HOLDERS 32 /* the most holders fetched ahead */
/* the most items of a value fetched ahead: a vector's or a transform's, not a long tuple's,
 * which an unchanged record would fetch every frame for nothing */
#define AHEAD_VALUE_ITEMS 16

static int is_record(PyObject *rec) {
    return PyList_CheckExact(rec) && PyList_GET_SIZE(rec) >= R_CACHE;
}

/* Fetch every cache line of size bytes at start (which need not start a line). */
static void fetch_span(const void *start, Py_ssize_t size) {
    const char *at = start, *end = at + size;
    for (; at < end; at += 64)
        __builtin_prefetch(at);
    if (size > 0)
        __builtin_prefetch(end - 1);
}

static void fetch_list_items(PyObject *list) {
    if (PyList_CheckExact(list))
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++)
            __builtin_prefetch(PyList_GET_ITEM(list, k));
}

/* The items of a tuple of at most AHEAD_VALUE_ITEMS. */
static void fetch_tuple_items(PyObject *value) {
    if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) <= AHEAD_VALUE_ITEMS)
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(value); j++)
            __builtin_prefetch(PyTuple_GET_ITEM(value, j));
}

/* Where a record's ON_CHANGE pairs start (its length when its SYNC indices are no tuple, or
 * when they would start past it). */
static inline Py_ssize_t watched_start(PyObject *rec) {
    PyObject *sync = PyList_GET_ITEM(rec, R_SYNC);
    Py_ssize_t n = PyList_GET_SIZE(rec);
    return PyTuple_CheckExact(sync) ? Py_MIN(R_CACHE + PyTuple_GET_SIZE(sync), n) : n;
}

/* The objects a record's items point to, as the frame will read them: not the sent-bytes dict
 * nor the watched values' bytes of a settled record, which it reads only when a watched value
 * changed (watched_settled). */
static void fetch_parts(PyObject *rec) {
    Py_ssize_t n = PyList_GET_SIZE(rec), watched_at = watched_start(rec);
    PyObject **items = ((PyListObject *)rec)->ob_item;
    int settled = items[R_SETTLED] == Py_True;
    /* the head's items one by one (a record has them all: is_record), not the flag itself */
    __builtin_prefetch(items[R_RAW]);
    __builtin_prefetch(items[R_SYNC]);
    __builtin_prefetch(items[R_WATCH]);
    __builtin_prefetch(items[R_CONVERT]);
    __builtin_prefetch(items[R_HOLDERS]);
    if (!settled)
        __builtin_prefetch(items[R_SENT]);
    __builtin_prefetch(items[R_ENTRY]);
    for (Py_ssize_t k = R_CACHE; k < watched_at; k++)
        __builtin_prefetch(items[k]);
    for (Py_ssize_t k = watched_at; k < n; k += 1 + settled)
        __builtin_prefetch(items[k]);
}

static void fetch_ahead(PyObject **recs, Py_ssize_t i, Py_ssize_t n) {
    if (i + AHEAD_RECORD < n)
        __builtin_prefetch(recs[i + AHEAD_RECORD]);
    if (i + AHEAD_ITEMS < n && PyList_CheckExact(recs[i + AHEAD_ITEMS])) {
        PyObject *rec = recs[i + AHEAD_ITEMS]; /* caches included, the array spans lines */
        fetch_span(((PyListObject *)rec)->ob_item, PyList_GET_SIZE(rec) * (Py_ssize_t)sizeof(PyObject *));
    }
    if (i + AHEAD_PARTS < n && is_record(recs[i + AHEAD_PARTS])) /* not the net id (id_of) */
        fetch_parts(recs[i + AHEAD_PARTS]);
    if (i + AHEAD_INNER < n && is_record(recs[i + AHEAD_INNER])) {
        PyObject *rec = recs[i + AHEAD_INNER];
        PyObject *holders = PyList_GET_ITEM(rec, R_HOLDERS), *sent = PyList_GET_ITEM(rec, R_SENT);
        PyObject *raw = PyList_GET_ITEM(rec, R_RAW);
        if (PyTuple_CheckExact(holders) && PyTuple_GET_SIZE(holders) > 4) /* past its first line */
            fetch_span(&PyTuple_GET_ITEM(holders, 0),
                       Py_MIN(PyTuple_GET_SIZE(holders), AHEAD_HOLDERS) * (Py_ssize_t)sizeof(PyObject *));
        /* a settled record's sent bytes are read only if a watched value changed: its dict
         * is not touched to fetch its table (a line a record most frames) */
        if (PyList_GET_ITEM(rec, R_SETTLED) != Py_True && PyDict_CheckExact(sent))
            __builtin_prefetch(((PyDictObject *)sent)->ma_keys);
        if (PyList_CheckExact(raw))
            __builtin_prefetch(((PyListObject *)raw)->ob_item);
    }
    if (i + AHEAD_HELD < n && is_record(recs[i + AHEAD_HELD]))
        fetch_list_items(PyList_GET_ITEM(recs[i + AHEAD_HELD], R_RAW));
    if (i + AHEAD_INSIDE < n && is_record(recs[i + AHEAD_INSIDE])) {
        PyObject *rec = recs[i + AHEAD_INSIDE], *raw = PyList_GET_ITEM(rec, R_RAW);
        for (Py_ssize_t k = 0; PyList_CheckExact(raw) && k < PyList_GET_SIZE(raw); k++)
            fetch_tuple_items(PyList_GET_ITEM(raw, k)); /* this frame's values: what they hold */
        Py_ssize_t n = PyList_GET_SIZE(rec), watched_at = watched_start(rec);
        for (Py_ssize_t k = R_CACHE; k < n; k += k < watched_at ? 1 : 2) /* values, not bytes */
            if (Py_REFCNT(PyList_GET_ITEM(rec, k)) == 1) /* freed soon: its items too */
                fetch_tuple_items(PyList_GET_ITEM(rec, k));
    }
}

static PyObject *py_frame(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "frame(roster, slots, clocks, encoder)");
        return NULL;
    }
    PyObject *slots = args[1], *clocks = args[2], *enc = args[3];
    if (!PyDict_Check(slots) || !PyList_Check(clocks) || !PyTuple_Check(enc) ||
        PyTuple_GET_SIZE(enc) != E_SIZE || !PyAnySet_Check(PyTuple_GET_ITEM(enc, E_IMMUTABLE)) ||
        !tuple_type(PyTuple_GET_ITEM(enc, E_VECTOR2)) || !tuple_type(PyTuple_GET_ITEM(enc, E_VECTOR3))) {
        PyErr_SetString(PyExc_TypeError,
                        "frame(roster, slots: dict, clocks: list, encoder: tuple of 6: ..., a set, two "
                        "tuple types)");
        return NULL;
    }
    Py_ssize_t nslots = PyList_GET_SIZE(clocks);
    Out *entries = PyMem_Calloc((size_t)nslots + 1, sizeof(Out));
    PyObject **deltas = PyMem_Calloc((size_t)nslots + 1, sizeof(PyObject *));
    PyObject *left_out = PyList_New(0), *sends = NULL, *result = NULL, *roster = NULL;
    if (entries == NULL || deltas == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (left_out == NULL ||
        (roster = PySequence_Fast(args[0], "frame: the roster must be iterable")) == NULL)
        goto done;
    Py_INCREF(clocks);
    Py_INCREF(slots);
    Py_ssize_t nrecs = PySequence_Fast_GET_SIZE(roster);
    PyObject **recs = PySequence_Fast_ITEMS(roster);
    Slots lookup = {slots, nslots, NULL, 0, 0};
    for (Py_ssize_t i = 0; i < nrecs; i++) {
        fetch_ahead(recs, i, nrecs);
        PyObject *rec = recs[i];
        Py_INCREF(rec);
        int rc = one_record(rec, &lookup, enc, entries, deltas, left_out);
        Py_DECREF(rec);
        if (rc < 0)
            break;
    }
    Py_CLEAR(lookup.peer);
    if (PyErr_Occurred() || (sends = PyList_New(0)) == NULL)
        goto release;
    for (Py_ssize_t s = 0; s < nslots && s < PyList_GET_SIZE(clocks); s++) {
        if (entries[s].len == 0 && deltas[s] == NULL)
            continue;
        PyObject *row = slot_sends(s, PyList_GET_ITEM(clocks, s), &entries[s], deltas[s]);
        if (row == NULL || PyList_Append(sends, row) < 0) {
            Py_XDECREF(row);
            goto release;
        }
        Py_DECREF(row);
    }
    result = PyTuple_Pack(2, sends, left_out);
release:
    Py_DECREF(clocks);
    Py_DECREF(slots);
done:
    for (Py_ssize_t s = 0; s < nslots && entries != NULL && deltas != NULL; s++) {
        PyMem_Free(entries[s].buf);
        Py_XDECREF(deltas[s]);
    }
    PyMem_Free(entries);
    PyMem_Free(deltas);
    Py_XDECREF(roster);
    Py_XDECREF(sends);
    Py_XDECREF(left_out);
    return result;
}

/* ---- counting what is sent ------------------------------------------------------------
 * tally((slots, cells, place), peer, data): TrafficCounter's count of one packet, as
 * _pysync.tally does it (the same updates in the same order), called once per packet by the
 * transports without a Python frame (through a partial that binds the counts). cells is an
 * array('q'): the bytes by first byte at [0, 256), the messages by first byte at [256, 512),
 * then a peer's bytes and messages at slots[peer] and the cell after; place(peer) gives a peer
 * not in slots its two cells. Each count adds to int64 cells, making no Python int; a sum
 * past 2**63 - 1 raises OverflowError (as the array's own item assignment does). */

#define KINDS 256

/* The three parts of a TrafficCounter's counts (_pysync.Counts), borrowed from its tuple. */
typedef struct {
    PyObject *slots, *cells, *place;
} Counts;

/* counts' parts in *c: 0, or -1 with TypeError set when it is not a counts tuple. */
static int counts_of(PyObject *tuple, Counts *c) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 3 ||
        !PyDict_Check(PyTuple_GET_ITEM(tuple, 0))) {
        PyErr_SetString(PyExc_TypeError, "counts: (slots: dict, cells: array('q'), place)");
        return -1;
    }
    c->slots = PyTuple_GET_ITEM(tuple, 0);
    c->cells = PyTuple_GET_ITEM(tuple, 1);
    c->place = PyTuple_GET_ITEM(tuple, 2);
    return 0;
}

/* The first of peer's two cells (from slots, or place(peer) when it has none), or -1 with
 * an error set (a -1 from place with no error is left to the cells' index check). */
static Py_ssize_t peer_cell(Counts *c, PyObject *peer) {
    PyObject *at = PyDict_GetItemWithError(c->slots, peer); /* borrowed */
    if (at != NULL)
        return PyLong_AsSsize_t(at);
    if (PyErr_Occurred())
        return -1;
    PyObject *placed = PyObject_CallOneArg(c->place, peer);
    if (placed == NULL)
        return -1;
    Py_ssize_t cell = PyLong_AsSsize_t(placed);
    Py_DECREF(placed);
    return cell;
}

/* cells[at] += by, cells holding n int64 items: 0, or -1 with IndexError or OverflowError
 * set (the cell then unchanged). by is never negative. */
static inline int add_cell(long long *cells, Py_ssize_t n, Py_ssize_t at, long long by) {
    if (at < 0 || at >= n) {
        PyErr_SetString(PyExc_IndexError, "array index out of range");
        return -1;
    }
    if (cells[at] > LLONG_MAX - by) {
        PyErr_SetString(PyExc_OverflowError, "a traffic count past 2**63 - 1");
        return -1;
    }
    cells[at] += by;
    return 0;
}

/* The first byte of data, as data[0], or -1 with an error set. */
static Py_ssize_t first_byte(PyObject *data, Py_ssize_t size) {
    if (PyBytes_CheckExact(data) && size > 0)
        return (unsigned char)PyBytes_AS_STRING(data)[0];
    PyObject *item = PySequence_GetItem(data, 0); /* another bytes-like object, or none */
    Py_ssize_t first = item == NULL ? -1 : PyLong_AsSsize_t(item);
    Py_XDECREF(item);
    if (first == -1 && PyErr_Occurred())
        return -1;
    if (first < 0 || first >= KINDS) {
        PyErr_SetString(PyExc_IndexError, "array index out of range");
        return -1;
    }
    return first;
}

/* tally's count of one packet: 0, or -1 with an error set. As tally: the peer's cells (placed
 * if new), the size, the peer's two counts, then the first byte and the kind's two counts. */
static int count_packet(Counts *c, PyObject *peer, PyObject *data) {
    Py_ssize_t at = peer_cell(c, peer);
    if (at == -1 && PyErr_Occurred())
        return -1;
    Py_ssize_t size = PyBytes_CheckExact(data) ? PyBytes_GET_SIZE(data) : PyObject_Size(data);
    if (size < 0)
        return -1;
    /* data[0] before the cells are held (it may run Python code); its error after the peer's
     * counts, as tally's */
    PyObject *type = NULL, *value = NULL, *trace = NULL;
    Py_ssize_t first = first_byte(data, size);
    if (first < 0)
        PyErr_Fetch(&type, &value, &trace);
    Py_buffer view;
    int rc = -1;
    if (PyObject_GetBuffer(c->cells, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        goto done;
    long long *cells = (long long *)view.buf;
    Py_ssize_t n = view.len / (Py_ssize_t)sizeof(long long);
    if (view.itemsize != sizeof(long long) || view.format == NULL ||
        view.format[0] != 'q' || view.format[1] != '\0') {
        PyErr_SetString(PyExc_TypeError, "counts: cells must be an array('q')");
    } else if (add_cell(cells, n, at, size) == 0 && add_cell(cells, n, at + 1, 1) == 0) {
        if (first < 0) {
            PyErr_Restore(type, value, trace);
            type = value = trace = NULL;
        } else if (add_cell(cells, n, first, size) == 0 &&
                   add_cell(cells, n, KINDS + first, 1) == 0) {
            rc = 0;
        }
    }
    PyBuffer_Release(&view);
done:
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    return rc;
}

static PyObject *py_tally(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "tally(counts, peer, data) takes 3 arguments");
        return NULL;
    }
    Counts c;
    if (counts_of(args[0], &c) < 0 || count_packet(&c, args[1], args[2]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Whether packet (a (peer, data, mode, channel) tuple) is hand_over's kind: an unreliable
 * mode (0 or 1) on channel 0, bytes data; 1 with *mode set, 0 when not (no error). */
static int plain_packet(PyObject *packet, long *mode) {
    if (!PyTuple_Check(packet) || PyTuple_GET_SIZE(packet) != 4 ||
        !PyBytes_Check(PyTuple_GET_ITEM(packet, 1)))
        return 0;
    PyObject *m = PyTuple_GET_ITEM(packet, 2), *channel = PyTuple_GET_ITEM(packet, 3);
    if (!PyLong_Check(m) || !PyLong_Check(channel))
        return 0;
    int overflow;
    *mode = PyLong_AsLongAndOverflow(m, &overflow);
    if (overflow || (*mode != 0 && *mode != 1))
        return 0;
    long c = PyLong_AsLongAndOverflow(channel, &overflow);
    return !overflow && c == 0;
}

/* One packet of hand_over: 1 handed, 0 not its kind (nothing done), -2 counted and refused
 * by ENet, -1 with an error set. */
static int hand_one(PyObject *links, PyObject *packet, Counts *counts,
                    Py_ssize_t largest, PyObject *routes, PyObject *make) {
    long mode;
    if (!plain_packet(packet, &mode))
        return 0;
    PyObject *peer = PyTuple_GET_ITEM(packet, 0), *data = PyTuple_GET_ITEM(packet, 1);
    PyObject *link = PyDict_GetItemWithError(links, peer); /* borrowed */
    if (link == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (PyBytes_GET_SIZE(data) > largest)
        return 0;
    Py_INCREF(link); /* the dict may lose it while the code below runs */
    int rc = -1, closing = -1;
    PyObject *flag = PyObject_GetAttr(link, s_closing), *enet_peer = NULL, *made = NULL;
    if (flag != NULL) {
        closing = PyObject_IsTrue(flag);
        Py_DECREF(flag);
    }
    if (closing != 0) {
        rc = closing < 0 ? -1 : 0;
        goto done;
    }
    PyObject *route = PyTuple_GET_ITEM(routes, mode);
    if (!PyTuple_Check(route) || PyTuple_GET_SIZE(route) != 2) {
        PyErr_SetString(PyExc_TypeError, "routes: a (channel, flags) tuple by mode");
        goto done;
    }
    if (count_packet(counts, peer, data) < 0 || !(enet_peer = PyObject_GetAttr(link, s_peer)))
        goto done;
    PyObject *make_args[2] = {data, PyTuple_GET_ITEM(route, 1)};
    if (!(made = PyObject_Vectorcall(make, make_args, 2, NULL)))
        goto done;
    PyObject *send_args[3] = {enet_peer, PyTuple_GET_ITEM(route, 0), made};
    PyObject *sent = PyObject_VectorcallMethod(s_send, send_args,
                                               3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (sent == NULL)
        goto done;
    long result = PyLong_AsLong(sent);
    Py_DECREF(sent);
    if (result == -1 && PyErr_Occurred())
        goto done;
    rc = result >= 0 ? 1 : -2;
done:
    Py_XDECREF(made);
    Py_XDECREF(enet_peer);
    Py_DECREF(link);
    return rc;
}

static PyObject *py_hand_over(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "hand_over(links, packets, start, counts, largest, "
                                         "routes, make) takes 7 arguments");
        return NULL;
    }
    PyObject *links = args[0], *packets = args[1], *routes = args[5], *make = args[6];
    Counts counts;
    if (counts_of(args[3], &counts) < 0)
        return NULL;
    if (!PyDict_Check(links) || !(PyList_Check(packets) || PyTuple_Check(packets)) ||
        !PyTuple_Check(routes) || PyTuple_GET_SIZE(routes) < 2) {
        PyErr_SetString(PyExc_TypeError, "hand_over(links: dict, packets: list or tuple, "
                                         "start, counts, largest, routes: tuple, make)");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[2]), largest = PyLong_AsSsize_t(args[4]);
    if ((start == -1 || largest == -1) && PyErr_Occurred())
        return NULL;
    if (start < 0) {
        PyErr_SetString(PyExc_ValueError, "hand_over: start must not be negative");
        return NULL;
    }
    Py_INCREF(packets); /* a list may be changed by the calls below: read it afresh each time */
    Py_ssize_t index = start;
    PyObject *result = NULL;
    for (; index < PySequence_Fast_GET_SIZE(packets); index++) {
        PyObject *packet = PySequence_Fast_GET_ITEM(packets, index);
        Py_INCREF(packet);
        int rc = hand_one(links, packet, &counts, largest, routes, make);
        Py_DECREF(packet);
        if (rc == -1)
            goto done;
        if (rc == 0)
            break;
        if (rc == -2) {
            result = PyLong_FromSsize_t(~index);
            goto done;
        }
    }
    result = PyLong_FromSsize_t(index);
done:
    Py_DECREF(packets);
    return result;
}

/* -- RPCs: REMOTE_CALL in its short form (wire/_rpc.py's read_short_call and
 * write_short_call, the references): byte 0 zero, the node's cache id and the method id in a
 * byte each, the argument count, the arguments. Read and written here when every argument is
 * a BOOL or an INT (of 64 bits at most); any other packet, argument or id goes, untouched, to
 * the pure function the caller passes (general), so every other form and every error is the
 * pure one's. A count is a byte and an argument at most 9 bytes: what is read is bounded by
 * the packet, what is written fits a buffer on the stack. -- */

#define RPC_ARGS_AT 4
#define RPC_MAX_ARGS 255
#define RPC_MAX_SHORT (RPC_ARGS_AT + RPC_MAX_ARGS * 9)
#define TYPE_MASK 0x3F
#define BOOL_TRUE 0x80

static PyObject *s_method_id, *s_args, *s_node_id, *s_path, *s_node_id_size;
static PyObject *empty_tuple, *zero;

/* The signed little-endian int of size bytes (1, 2, 4 or 8) at p. */
static inline long long read_le(const unsigned char *p, int size) {
    uint64_t v = 0;
    for (int i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    if (size < 8 && v >> (8 * size - 1) & 1)
        v |= ~(uint64_t)0 << (8 * size);
    return (long long)v;
}

/* The arguments of the short call in p[0:n] (count of them) when each is a BOOL or an INT and
 * they end the packet exactly: a new tuple; else NULL, with no error for another form (the
 * general reader's) or with one (out of memory). Sizes are checked before anything is made. */
static PyObject *short_args(const unsigned char *p, Py_ssize_t n, Py_ssize_t count) {
    Py_ssize_t at = RPC_ARGS_AT;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (at >= n)
            return NULL;
        unsigned kind = p[at] & TYPE_MASK;
        if (kind == T_BOOL)
            at += 1;
        else if (kind == T_INT)
            at += 1 + (1 << (p[at] >> 6));
        else
            return NULL;
    }
    if (at != n)
        return NULL;
    PyObject *args = PyTuple_New(count);
    if (args == NULL)
        return NULL;
    at = RPC_ARGS_AT;
    for (Py_ssize_t i = 0; i < count; i++) {
        unsigned meta = p[at];
        PyObject *value;
        if ((meta & TYPE_MASK) == T_BOOL) { /* Godot reads bit 7 only */
            value = PyBool_FromLong(meta & BOOL_TRUE);
            at += 1;
        } else {
            int size = 1 << (meta >> 6);
            value = PyLong_FromLongLong(read_le(p + at + 1, size));
            at += 1 + size;
        }
        if (value == NULL) {
            Py_DECREF(args);
            return NULL;
        }
        PyTuple_SET_ITEM(args, i, value);
    }
    return args;
}

/* cls(method_id, args, node_id) as wire._rpc.short_call makes it: object.__new__, then the
 * five fields set as object.__setattr__ sets them (a frozen dataclass's __init__ goes through
 * its own __setattr__; here each is stored in the instance's values, no dict made). Steals
 * args. */
static PyObject *new_call(PyObject *cls, long method_id, PyObject *args, long node_id) {
    PyObject *call = NULL, *method = NULL, *node = NULL;
    if (!(method = PyLong_FromLong(method_id)) || !(node = PyLong_FromLong(node_id)) ||
        !(call = PyBaseObject_Type.tp_new((PyTypeObject *)cls, empty_tuple, NULL)))
        goto done;
    if (PyObject_GenericSetAttr(call, s_method_id, method) < 0 ||
        PyObject_GenericSetAttr(call, s_args, args) < 0 ||
        PyObject_GenericSetAttr(call, s_node_id, node) < 0 ||
        PyObject_GenericSetAttr(call, s_path, Py_None) < 0 ||
        PyObject_GenericSetAttr(call, s_node_id_size, zero) < 0)
        Py_CLEAR(call);
done:
    Py_XDECREF(node);
    Py_XDECREF(method);
    Py_DECREF(args);
    return call;
}

static PyObject *py_read_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "read_call(data, allow_objects, limits, cls, general) takes 5 arguments");
        return NULL;
    }
    PyObject *data = args[0], *cls = args[3];
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyBaseObject_Type) ||
        ((PyTypeObject *)cls)->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError, "read_call: cls must be a class object.__new__ makes");
        return NULL;
    }
    if (!PyBytes_CheckExact(data) || PyBytes_GET_SIZE(data) < RPC_ARGS_AT ||
        PyBytes_AS_STRING(data)[0] != 0)
        Py_RETURN_NONE; /* not the short form: the caller's general reader's */
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(data);
    PyObject *call_args = short_args(p, PyBytes_GET_SIZE(data), p[3]);
    if (call_args != NULL)
        return new_call(cls, p[2], call_args, p[1]);
    if (PyErr_Occurred())
        return NULL;
    return PyObject_Vectorcall(args[4], args, 3, NULL);
}

/* The compressed form of v (an exact bool, or an exact int of 64 bits at most) at p: its size,
 * or 0 for any other value (left to the general writer). */
static int put_arg(unsigned char *p, PyObject *v) {
    if (PyBool_Check(v)) {
        p[0] = T_BOOL | (v == Py_True ? BOOL_TRUE : 0);
        return 1;
    }
    long long n;
    if (!small_int(v, &n)) {
        if (!PyLong_CheckExact(v))
            return 0;
        int overflow;
        n = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (n == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
    }
    int mode = n >= INT8_MIN && n <= INT8_MAX ? 0 : n >= INT16_MIN && n <= INT16_MAX ? 1
             : n >= INT32_MIN && n <= INT32_MAX ? 2 : 3;
    int size = 1 << mode;
    p[0] = T_INT | mode << 6;
    for (int i = 0; i < size; i++)
        p[1 + i] = (unsigned char)((uint64_t)n >> (8 * i));
    return 1 + size;
}

static PyObject *py_write_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "write_call(node_id, method_id, args, general) takes 4 arguments");
        return NULL;
    }
    long long node, method;
    PyObject *values = args[2];
    if (small_int(args[0], &node) && node >= 0 && node < 0x100 && small_int(args[1], &method) &&
        method >= 0 && method < 0x100 && PyTuple_CheckExact(values) &&
        PyTuple_GET_SIZE(values) > 0 && PyTuple_GET_SIZE(values) <= RPC_MAX_ARGS) {
        unsigned char out[RPC_MAX_SHORT];
        Py_ssize_t count = PyTuple_GET_SIZE(values), at = RPC_ARGS_AT, i;
        out[0] = 0;
        out[1] = (unsigned char)node;
        out[2] = (unsigned char)method;
        out[3] = (unsigned char)count;
        for (i = 0; i < count; i++) {
            int size = put_arg(out + at, PyTuple_GET_ITEM(values, i));
            if (size == 0)
                break;
            at += size;
        }
        if (i == count)
            return PyBytes_FromStringAndSize((const char *)out, at);
    }
    return PyObject_Vectorcall(args[3], args, 3, NULL);
}

static PyMethodDef methods[] = {
    {"frame", (PyCFunction)(void (*)(void))py_frame, METH_FASTCALL,
     "frame(roster, slots, clocks, encoder) -> (sends, left_out), as _pysync.frame."},
    {"tally", (PyCFunction)(void (*)(void))py_tally, METH_FASTCALL,
     "tally(counts, peer, data): one packet counted, as _pysync.tally."},
    {"hand_over", (PyCFunction)(void (*)(void))py_hand_over, METH_FASTCALL,
     "hand_over(links, packets, start, counts, largest, routes, make) -> int, as "
     "_pysync.hand_over."},
    {"read_call", (PyCFunction)(void (*)(void))py_read_call, METH_FASTCALL,
     "read_call(data, allow_objects, limits, cls, general) -> cls | None, as _pysync.read_call."},
    {"write_call", (PyCFunction)(void (*)(void))py_write_call, METH_FASTCALL,
     "write_call(node_id, method_id, args, general) -> bytes | None, as _pysync.write_call."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_csync",
    "The compiled network frame of SceneMultiplayer.sync (the reference: _pysync.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__csync(void) {
    s_last = PyUnicode_InternFromString("last");
    s_state = PyUnicode_InternFromString("state");
    s_delta = PyUnicode_InternFromString("delta");
    s_closing = PyUnicode_InternFromString("closing");
    s_peer = PyUnicode_InternFromString("peer");
    s_send = PyUnicode_InternFromString("send");
    s_method_id = PyUnicode_InternFromString("method_id");
    s_args = PyUnicode_InternFromString("args");
    s_node_id = PyUnicode_InternFromString("node_id");
    s_path = PyUnicode_InternFromString("path");
    s_node_id_size = PyUnicode_InternFromString("node_id_size");
    empty_tuple = PyTuple_New(0);
    zero = PyLong_FromLong(0);
    if (s_last == NULL || s_state == NULL || s_delta == NULL || s_closing == NULL ||
        s_peer == NULL || s_send == NULL || s_method_id == NULL || s_args == NULL ||
        s_node_id == NULL || s_path == NULL || s_node_id_size == NULL ||
        empty_tuple == NULL || zero == NULL)
        return NULL;
    return PyModule_Create(&module);
}
