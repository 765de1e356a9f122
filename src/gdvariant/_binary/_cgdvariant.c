/* The compiled core of gdvariant: the common Variant types of every profile.
 *
 * The pure-Python core (decoder.py, encoder.py beside this file) is the reference. This file
 * knows wire shapes, not version rules: what each wire type id means in a profile, which header
 * flags it allows and how wide its math components are come from gdvariant._binary.ctables,
 * which builds them from the same Profile objects the pure core reads. Whenever the input is not on
 * the fast path -- any error, a limit hit, full objects, typed containers, rare types -- the
 * whole call is handed to the pure core, which then gives the reference value or error. So the
 * C code never raises a DecodeError or EncodeError of its own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Decoder actions per wire type id (the same numbers as ctables._ACTIONS). */
enum {
    A_DEFER = 0, A_NIL, A_BOOL, A_INT, A_FLOAT, A_STRING, A_STRING_NAME, A_MATH, A_DICT,
    A_ARRAY, A_BYTES, A_PACKED, A_STRING_ARRAY, A_RID, A_OBJECT, A_NODE_PATH, A_BARE_RID,
    A_BARE_OBJECT, A_CALLABLE, A_SIGNAL
};
/* Encoder entries per Python class (the same numbers as ctables._E_*). */
enum {
    E_NONE = 0, E_STRING_NAME, E_MATH, E_PACKED, E_STRING_ARRAY, E_BYTES, E_RID, E_OBJECT_ID,
    E_NODE_PATH, E_CALLABLE, E_SIGNAL
};

#define FLAG_64 (1u << 16)
#define COUNT_MASK 0x7FFFFFFFu
/* Deeper than this the C code hands over: the pure core has no recursion to run out of. */
#define C_MAX_DEPTH 1024
#define MAX_COMPONENTS 16

typedef struct {
    int components;
    /* 'f' float32, 'd' float64, 'i' int32, 'n' float64 held as float32 (``_reals``) */
    char narrow, wide;
    PyTypeObject *flat; /* the class when the value is its components in order */
    PyObject *unflatten;
} MathDecode;

typedef struct {
    PyTypeObject *cls[2]; /* without / with the 64-bit flag: the bytes' class */
    Py_ssize_t itemsize[2];
    PyTypeObject *held[2]; /* the class the engine holds them as (``_reals.packed_reads``) */
    char convert[2];       /* 0: none; 'n': doubles rounded to floats; 'w': floats widened */
} PackedDecode;

typedef struct {
    int entry;
    uint32_t header;
    int components;
    char code;
    int flat;
    Py_ssize_t itemsize;
    PyObject *flatten;
} EncodeEntry;

typedef struct {
    /* decoding */
    unsigned char action[256];
    uint32_t flag_bits;
    long long max_decode_depth; /* the engine's own limit; -1: none */
    int typed_arrays, typed_dicts;
    uint32_t packed_flag;
    MathDecode math[256];
    PackedDecode packed[256];
    PyObject *elements; /* tuple of 256: ElementType, None (untyped) or False (no such type) */
    unsigned char kinds[256]; /* wire id -> type number (255: none), for typed containers */
    int check_elements, check_values; /* typed containers check elements / dictionary values */
    /* encoding */
    PyObject *classes; /* dict: class -> index into entries */
    EncodeEntry *entries;
    Py_ssize_t n_entries;
    uint32_t h_nil, h_bool, h_int, h_float, h_string, h_dict, h_array;
    int int64, int_always_64, float64, rid_payload;
    uint32_t count_flag;
    long long max_encode_depth; /* -1: none */
    int typed_array_mode;       /* 0 hand over, 1 typed bits, 2 as a plain Array */
    int typed_dicts_out;
    PyObject *wire_of;          /* dict: int(VariantType) -> wire id */
    PyObject *keep; /* the Python table, which owns every object referenced above */
} Table;

/* ---- module-wide state (set up on first use) ---------------------------------------------- */

static PyObject *StringName, *NodePath, *RID, *ObjectID, *PackedStringArray, *CallableValue;
static PyObject *TypedArray, *Dictionary, *Signal, *ElementType, *ObjectType;
static int object_kind; /* int(VariantType.OBJECT): the type any Object-typed container takes */
static PyObject *PackedViewType, *view_wrap; /* PackedView and PackedView._wrap(kind, slice) */
static long builtin_kind; /* ContainerKind.BUILTIN */
static PyObject *pure_decode, *pure_encode, *pure_whole, *table_builder;
static PyObject *tables;         /* dict: profile -> capsule(Table) */
static PyObject *last_profile;   /* borrowed key of last_table, kept alive by `tables` */
static Table *last_table;
static PyObject *last_limits;    /* a strong reference */
/* One call's caps, copied out of its Limits: a call can let other threads run (a class it
 * instantiates runs Python code), so nothing per call lives in globals. */
typedef struct {
    long long depth, size, length, elements;
} Caps;
static Caps last_caps;

static int setup(void) {
    if (tables != NULL) return 0;
    PyObject *mod = PyImport_ImportModule("gdvariant._binary.ctables");
    if (mod == NULL) return -1;
    PyObject *cls = PyObject_CallMethod(mod, "classes", NULL);
    PyObject *builder = cls == NULL ? NULL : PyObject_GetAttrString(mod, "table");
    Py_DECREF(mod);
    if (builder == NULL) {
        Py_XDECREF(cls);
        return -1;
    }
    PyObject **slots[] = {&StringName, &NodePath, &RID, &ObjectID, &PackedStringArray,
                          &CallableValue, &pure_decode, &pure_encode, &TypedArray,
                          &Dictionary, &Signal, &ElementType, &ObjectType, &pure_whole,
                          &PackedViewType, &view_wrap};
    PyObject *got[16];
    if (!PyArg_ParseTuple(cls, "OOOOOOOOOOlOOOOOO", &got[0], &got[1], &got[2], &got[3],
                          &got[4], &got[5], &got[6], &got[7], &got[8], &got[9],
                          &builtin_kind, &got[10], &got[11], &got[12], &got[13], &got[14],
                          &got[15])) {
        Py_DECREF(cls);
        Py_DECREF(builder);
        return -1;
    }
    PyObject *made = PyDict_New();
    if (made == NULL) {
        Py_DECREF(cls);
        Py_DECREF(builder);
        return -1;
    }
    for (int i = 0; i < 16; i++) { /* kept for the life of the process */
        Py_INCREF(got[i]);
        *slots[i] = got[i];
    }
    Py_DECREF(cls);
    object_kind = (int)PyLong_AsLong(ObjectType);
    if (object_kind == -1 && PyErr_Occurred()) return -1;
    table_builder = builder;
    tables = made;
    return 0;
}

static void table_release(Table *t) {
    Py_XDECREF(t->keep);
    Py_XDECREF(t->classes);
    PyMem_Free(t->entries);
    PyMem_Free(t);
}

static void table_free(PyObject *capsule) {
    Table *t = PyCapsule_GetPointer(capsule, "gdvariant.table");
    if (t != NULL) table_release(t);
}

static int as_long(PyObject *o, long long *out) {
    *out = PyLong_AsLongLong(o);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int char_of(PyObject *s, char *out) {
    Py_ssize_t n;
    const char *c = PyUnicode_AsUTF8AndSize(s, &n);
    if (c == NULL) return -1;
    if (n != 1) {
        PyErr_SetString(PyExc_ValueError, "table: a one-letter code was expected");
        return -1;
    }
    *out = c[0];
    return 0;
}

/* The decoder's math rows: (wire type, components, narrow and wide codes, unflatten, flat class). */
static int table_math(Table *t, PyObject *math) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(math); i++) {
        int wire, components;
        PyObject *narrow, *wide, *unflatten, *flat;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(math, i), "iiUUOO", &wire, &components, &narrow,
                              &wide, &unflatten, &flat))
            return -1;
        if (wire < 0 || wire > 255 || components < 1 || components > MAX_COMPONENTS) {
            PyErr_SetString(PyExc_ValueError, "table: bad math layout");
            return -1;
        }
        MathDecode *m = &t->math[wire];
        m->components = components;
        if (char_of(narrow, &m->narrow) < 0 || char_of(wide, &m->wide) < 0) return -1;
        m->unflatten = unflatten;
        m->flat = flat == Py_None ? NULL : (PyTypeObject *)flat;
    }
    return 0;
}

/* The decoder's packed-array rows: per wire type, the class, item size, held type and
 * conversion of its 32- and 64-bit forms. */
static int table_packed(Table *t, PyObject *packed) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(packed); i++) {
        int wire;
        PyObject *cls[2], *held[2], *convert[2];
        Py_ssize_t size[2];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(packed, i), "iOnOUOnOU", &wire, &cls[0], &size[0],
                              &held[0], &convert[0], &cls[1], &size[1], &held[1], &convert[1]))
            return -1;
        if (wire < 0 || wire > 255 || size[0] < 1 || size[1] < 1) {
            PyErr_SetString(PyExc_ValueError, "table: bad packed layout");
            return -1;
        }
        for (int w = 0; w < 2; w++) {
            PackedDecode *k = &t->packed[wire];
            k->cls[w] = (PyTypeObject *)cls[w];
            k->itemsize[w] = size[w];
            k->held[w] = (PyTypeObject *)held[w];
            if (char_of(convert[w], &k->convert[w]) < 0) return -1;
            if (k->convert[w] == '-') k->convert[w] = 0;
        }
    }
    return 0;
}

/* The decoding half of a profile's table (its Python builder's first item). */
static int table_decoding(Table *t, PyObject *dec) {
    PyObject *actions, *math, *packed;
    long long flag_bits, packed_flag;
    PyObject *kinds;
    int typed_arrays, typed_dicts;
    if (!PyArg_ParseTuple(dec, "SLppLO!O!O!SppL", &actions, &flag_bits, &typed_arrays,
                          &typed_dicts, &packed_flag, &PyTuple_Type, &math, &PyTuple_Type,
                          &packed, &PyTuple_Type, &t->elements, &kinds, &t->check_elements,
                          &t->check_values, &t->max_decode_depth))
        return -1;
    if (PyBytes_GET_SIZE(kinds) != 256) {
        PyErr_SetString(PyExc_ValueError, "table: 256 type numbers expected");
        return -1;
    }
    memcpy(t->kinds, PyBytes_AS_STRING(kinds), 256);
    if (PyTuple_GET_SIZE(t->elements) != 256) {
        PyErr_SetString(PyExc_ValueError, "table: 256 element types expected");
        return -1;
    }
    if (PyBytes_GET_SIZE(actions) != 256) {
        PyErr_SetString(PyExc_ValueError, "table: 256 actions expected");
        return -1;
    }
    memcpy(t->action, PyBytes_AS_STRING(actions), 256);
    t->flag_bits = (uint32_t)flag_bits;
    t->typed_arrays = typed_arrays;
    t->typed_dicts = typed_dicts;
    t->packed_flag = (uint32_t)packed_flag;
    return table_math(t, math) < 0 ? -1 : table_packed(t, packed);
}

/* Encoder row i: (class, entry kind, header[, extra, code, flat, flatten]), and the class's
 * index in t->classes. */
static int table_entry(Table *t, Py_ssize_t i, PyObject *row) {
    EncodeEntry *e = &t->entries[i];
    long long header, extra = 0;
    PyObject *cls, *code = NULL, *flatten = NULL;
    int flat = 0, entry;
    if (!PyArg_ParseTuple(row, "OiL|LUpO", &cls, &entry, &header, &extra, &code, &flat,
                          &flatten))
        return -1;
    e->entry = entry;
    e->header = (uint32_t)header;
    if (entry == E_MATH) {
        if (code == NULL || flatten == NULL || extra < 1 || extra > MAX_COMPONENTS) {
            PyErr_SetString(PyExc_ValueError, "table: bad math entry");
            return -1;
        }
        e->components = (int)extra;
        if (char_of(code, &e->code) < 0) return -1;
        e->flat = flat;
        e->flatten = flatten;
    } else if (entry == E_PACKED) {
        e->itemsize = (Py_ssize_t)extra;
    }
    PyObject *index = PyLong_FromSsize_t(i);
    int rc = index == NULL ? -1 : PyDict_SetItem(t->classes, cls, index);
    Py_XDECREF(index);
    return rc;
}

/* The encoding half of a profile's table (its Python builder's second item). */
static int table_encoding(Table *t, PyObject *enc) {
    PyObject *entries;
    long long h[7], count_flag, max_depth;
    int int64, always64, float64, rid_payload, typed_dicts_out, typed_array_mode;
    if (!PyArg_ParseTuple(enc, "O!LLLLLLLppppLLipO!", &PyTuple_Type, &entries, &h[0], &h[1],
                          &h[2], &h[3], &h[4], &h[5], &h[6], &int64, &always64, &float64,
                          &rid_payload, &count_flag, &max_depth, &typed_array_mode,
                          &typed_dicts_out, &PyDict_Type, &t->wire_of))
        return -1;
    t->typed_array_mode = typed_array_mode;
    t->typed_dicts_out = typed_dicts_out;
    t->h_nil = (uint32_t)h[0];
    t->h_bool = (uint32_t)h[1];
    t->h_int = (uint32_t)h[2];
    t->h_float = (uint32_t)h[3];
    t->h_string = (uint32_t)h[4];
    t->h_dict = (uint32_t)h[5];
    t->h_array = (uint32_t)h[6];
    t->int64 = int64;
    t->int_always_64 = always64;
    t->float64 = float64;
    t->rid_payload = rid_payload;
    t->count_flag = (uint32_t)count_flag;
    t->max_encode_depth = max_depth;
    t->n_entries = PyTuple_GET_SIZE(entries);
    t->entries = PyMem_Calloc((size_t)t->n_entries + 1, sizeof(EncodeEntry));
    t->classes = PyDict_New();
    if (t->entries == NULL || t->classes == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < t->n_entries; i++)
        if (table_entry(t, i, PyTuple_GET_ITEM(entries, i)) < 0) return -1;
    return 0;
}

/* A profile's compiled table, from what its Python builder (table_builder) makes of it. */
static Table *build_table(PyObject *profile) {
    PyObject *spec = PyObject_CallOneArg(table_builder, profile);
    if (spec == NULL) return NULL;
    Table *t = PyMem_Calloc(1, sizeof(Table));
    if (t == NULL) {
        Py_DECREF(spec);
        PyErr_NoMemory();
        return NULL;
    }
    t->keep = spec;
    PyObject *dec, *enc;
    if (!PyArg_ParseTuple(spec, "OO", &dec, &enc) || table_decoding(t, dec) < 0 ||
        table_encoding(t, enc) < 0) {
        table_release(t); /* spec (t->keep), the classes and the entries */
        return NULL;
    }
    return t;
}

static Table *table_for(PyObject *profile) {
    if (profile == last_profile) return last_table;
    if (setup() < 0) return NULL;
    PyObject *capsule = PyDict_GetItemWithError(tables, profile);
    Table *t;
    if (capsule == NULL) {
        if (PyErr_Occurred()) return NULL;
        t = build_table(profile);
        if (t == NULL) return NULL;
        capsule = PyCapsule_New(t, "gdvariant.table", table_free);
        if (capsule == NULL) {
            table_release(t);
            return NULL;
        }
        int rc = PyDict_SetItem(tables, profile, capsule);
        Py_DECREF(capsule);
        if (rc < 0) return NULL;
    } else {
        t = PyCapsule_GetPointer(capsule, "gdvariant.table");
        if (t == NULL) return NULL;
    }
    last_profile = profile;
    last_table = t;
    return t;
}

static int read_cap(PyObject *limits, const char *name, long long *out) {
    PyObject *v = PyObject_GetAttrString(limits, name);
    if (v == NULL) return -1;
    if (v == Py_None) {
        *out = (long long)1 << 62;
    } else if (as_long(v, out) < 0) {
        Py_DECREF(v);
        return -1;
    }
    Py_DECREF(v);
    return 0;
}

static int load_limits(PyObject *limits, Caps *out) {
    if (limits != last_limits) {
        Caps c;
        if (read_cap(limits, "max_depth", &c.depth) < 0 ||
            read_cap(limits, "max_size", &c.size) < 0 ||
            read_cap(limits, "max_length", &c.length) < 0 ||
            read_cap(limits, "max_elements", &c.elements) < 0)
            return -1;
        last_caps = c;
        Py_INCREF(limits);
        Py_XSETREF(last_limits, limits);
    }
    *out = last_caps;
    return 0;
}

/* ---- decoding ----------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *p;
    Py_ssize_t end;
    Table *t;
    long long max_depth;
    Caps caps;
    int merged; /* set by plain_dict: the keys need a gdvariant.Dictionary */
    Py_ssize_t reread; /* bytes read twice for such Dictionaries, bounded by the input size */
    PyObject *source;  /* packed views: the input object; NULL when packed arrays are copied */
    PyObject *whole;   /* its read-only byte memoryview, made at the first packed array */
} Dec;

static inline uint32_t rd_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd_u64(const unsigned char *p) {
    return (uint64_t)rd_u32(p) | (uint64_t)rd_u32(p + 4) << 32;
}
static inline double rd_f32(const unsigned char *p) {
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}
static inline double rd_f64(const unsigned char *p) {
    uint64_t u = rd_u64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* NULL without an exception set: hand the call to the pure core. */
#define DEFER return NULL

/* UTF-8 text as Godot keeps it: up to the first NUL. Text starting with a BOM, or not strict
 * UTF-8 before the NUL (the surrogates Godot 2/3 accept, or an error) takes the pure path. */
static PyObject *text(const unsigned char *s, Py_ssize_t n) {
    const unsigned char *nul = memchr(s, 0, (size_t)n);
    if (nul != NULL) n = nul - s; /* Godot stops at a NUL (PackedStringArray writes one) */
    if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) DEFER;
    PyObject *r = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) PyErr_Clear();
    return r;
}

/* A headerless String at *pos: u32 length, bytes, padding to 4 (``_read_string``). */
static PyObject *read_string(Dec *d, Py_ssize_t *pos) {
    Py_ssize_t at = *pos;
    if (d->end - at < 4) DEFER;
    int32_t n = (int32_t)rd_u32(d->p + at);
    if (n < 0 || (Py_ssize_t)n + (-n & 3) > d->end - at - 4 || n > d->caps.length) DEFER;
    PyObject *s = text(d->p + at + 4, n);
    if (s != NULL) *pos = at + 4 + n + (-n & 3);
    return s;
}

static PyObject *new_tuple_of(PyTypeObject *cls, Py_ssize_t n) {
    return cls == &PyTuple_Type ? PyTuple_New(n) : cls->tp_alloc(cls, n);
}

/* A bytes subclass instance of n bytes, not yet written. Allocated as tp_alloc would, less its
 * memset of the whole block: the caller's copy is then the only pass over the data. */
static PyObject *packed_new(PyTypeObject *cls, Py_ssize_t n) {
    PyObject *r;
    if (PyType_IS_GC(cls)) {
        r = (PyObject *)PyObject_GC_NewVar(PyVarObject, cls, n);
        if (r == NULL) return NULL;
        PyObject_GC_Track(r);
    } else {
        r = cls->tp_alloc(cls, n);
        if (r == NULL) return NULL;
    }
    PyBytes_AS_STRING(r)[n] = '\0';
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    ((PyBytesObject *)r)->ob_shash = -1;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return r;
}

/* A bytes subclass instance holding a copy of n bytes. */
static PyObject *packed_from(PyTypeObject *cls, const unsigned char *s, Py_ssize_t n) {
    PyObject *r = packed_new(cls, n);
    if (r != NULL) memcpy(PyBytes_AS_STRING(r), s, (size_t)n);
    return r;
}

static inline void wr_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* n components at s, held at the other width (``_reals.recast``): 'n' doubles rounded to
 * floats as a C cast does, 'w' floats widened. */
static PyObject *packed_converted(PyTypeObject *cls, char convert, const unsigned char *s,
                                  Py_ssize_t n) {
    PyObject *r = packed_new(cls, convert == 'n' ? n * 4 : n * 8);
    if (r == NULL) return NULL;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(r);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (convert == 'n') {
            float f = (float)rd_f64(s + 8 * i);
            uint32_t u;
            memcpy(&u, &f, 4);
            wr_u32(out + 4 * i, u);
        } else {
            double x = rd_f32(s + 4 * i);
            uint64_t u;
            memcpy(&u, &x, 8);
            wr_u32(out + 8 * i, (uint32_t)u);
            wr_u32(out + 8 * i + 4, (uint32_t)(u >> 32));
        }
    }
    return r;
}

/* packed_views: a PackedView of n bytes at start of the input, sharing its memory. */
static PyObject *packed_view(Dec *d, PyObject *kind, Py_ssize_t start, Py_ssize_t n) {
    if (d->whole == NULL) {
        PyObject *mv = PyMemoryView_FromObject(d->source);
        PyObject *bytes_mv = mv == NULL ? NULL : PyObject_CallMethod(mv, "cast", "s", "B");
        Py_XDECREF(mv);
        if (bytes_mv == NULL) return NULL;
        d->whole = PyObject_CallMethod(bytes_mv, "toreadonly", NULL);
        Py_DECREF(bytes_mv);
        if (d->whole == NULL) return NULL;
    }
    PyObject *args[2] = {kind, PySequence_GetSlice(d->whole, start, start + n)};
    if (args[1] == NULL) return NULL;
    PyObject *v = PyObject_Vectorcall(view_wrap, args, 2, NULL);
    Py_DECREF(args[1]);
    return v;
}

static PyObject *component(char code, const unsigned char *p) {
    if (code == 'i') return PyLong_FromLong((long)(int32_t)rd_u32(p));
    if (code == 'n') return PyFloat_FromDouble((double)(float)rd_f64(p)); /* a float32 real_t */
    return PyFloat_FromDouble(code == 'd' ? rd_f64(p) : rd_f32(p));
}

static PyObject *decode_math(Dec *d, uint32_t header, Py_ssize_t *pos) {
    MathDecode *m = &d->t->math[header & 0xFF];
    char code = (header & FLAG_64) ? m->wide : m->narrow;
    Py_ssize_t width = code == 'd' || code == 'n' ? 8 : 4;
    Py_ssize_t size = width * m->components;
    if (d->end - *pos - 4 < size) DEFER;
    const unsigned char *p = d->p + *pos + 4;
    PyObject *r = new_tuple_of(m->flat ? m->flat : &PyTuple_Type, m->components);
    if (r == NULL) return NULL;
    for (int i = 0; i < m->components; i++) {
        PyObject *c = component(code, p + i * width);
        if (c == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r, i, c);
    }
    *pos += 4 + size;
    if (m->flat) return r;
    PyObject *v = PyObject_CallOneArg(m->unflatten, r);
    Py_DECREF(r);
    return v;
}

static PyObject *decode_node_path(Dec *d, Py_ssize_t *pos) {
    Py_ssize_t at = *pos;
    if (d->end - at < 16) DEFER;
    uint32_t first = rd_u32(d->p + at + 4);
    uint32_t subs = rd_u32(d->p + at + 8), flags = rd_u32(d->p + at + 12);
    if (!(first & 0x80000000u) || (flags & 2)) DEFER; /* old text form, 2.x property */
    uint32_t names = first & COUNT_MASK;
    uint32_t total = names + subs; /* wraps as Godot's uint32 sum does */
    at += 16;
    if ((Py_ssize_t)total * 4 > d->end - at || total > d->caps.elements) DEFER;
    if (names > total) names = total; /* after a wrap, every string read is a name */
    PyObject *n = PyTuple_New(names), *s = PyTuple_New(total - names);
    if (n == NULL || s == NULL) goto fail;
    for (uint32_t i = 0; i < total; i++) {
        PyObject *part = read_string(d, &at);
        if (part == NULL) goto fail;
        if (i < names) PyTuple_SET_ITEM(n, i, part);
        else PyTuple_SET_ITEM(s, i - names, part);
    }
    PyObject *r = new_tuple_of((PyTypeObject *)NodePath, 3);
    if (r == NULL) goto fail;
    PyTuple_SET_ITEM(r, 0, n);
    PyTuple_SET_ITEM(r, 1, s);
    PyObject *absolute = (flags & 1) ? Py_True : Py_False;
    Py_INCREF(absolute);
    PyTuple_SET_ITEM(r, 2, absolute);
    *pos = at;
    return r;
fail:
    Py_XDECREF(n);
    Py_XDECREF(s);
    return NULL;
}

static PyObject *decode_one(Dec *d, Py_ssize_t *ppos, int depth);

/* What a typed container's element must be to need no check (``_element_rules``): its type
 * number; or any type but NIL goes to the pure core (an Object class other than the one Godot
 * writes without full objects: only the pure core knows allow_objects and the classes). */
#define WANT_NONE (-2)      /* untyped, or a profile without element rules */
#define WANT_ONLY_NIL (-1)

/* Whether an element starting at pos may join a container wanting ``want`` as it is. */
static inline int element_fits(Dec *d, Py_ssize_t pos, int want) {
    if (want == WANT_NONE) return 1;
    if (d->end - pos < 4) return 1; /* the element itself hands over */
    int kind = d->t->kinds[d->p[pos]];
    if (kind == want) return 1;
    return kind == 0 && (want == WANT_ONLY_NIL || want == object_kind);
}

/* The element type of a typed container at *pos (``_container_type``): kind 0 reads nothing and
 * is untyped; kind 1 reads a builtin type id; 2 and 3 a class name or script path. A new
 * reference (None: untyped), or NULL to hand over. *want is set for element_fits. */
static PyObject *container_type(Dec *d, uint32_t kind, Py_ssize_t *pos, int *want) {
    *want = WANT_NONE;
    if (kind == 0) Py_RETURN_NONE;
    if (kind != 1) { /* a class name or script path */
        PyObject *name = read_string(d, pos);
        if (name == NULL) return NULL;
        if (d->t->check_elements) {
            int as_id = kind == 2 && PyUnicode_CompareWithASCIIString(name, "EncodedObjectAsID") == 0;
            *want = as_id ? object_kind : WANT_ONLY_NIL;
        }
        PyObject *k = PyLong_FromUnsignedLong(kind);
        PyObject *e = k ? PyObject_CallFunctionObjArgs(ElementType, k, ObjectType, name, NULL)
                        : NULL;
        Py_XDECREF(k);
        Py_DECREF(name);
        return e;
    }
    if (d->end - *pos < 4) DEFER;
    uint32_t wire = rd_u32(d->p + *pos);
    if (wire > 255) DEFER;
    PyObject *e = PyTuple_GET_ITEM(d->t->elements, wire);
    if (e == Py_False) DEFER;
    *pos += 4;
    if (e != Py_None && d->t->check_elements) *want = d->t->kinds[wire];
    Py_INCREF(e);
    return e;
}

/* An untyped Dictionary as a plain dict; NULL with d->merged set when its keys do not fit one
 * (an unhashable key, or keys Python merges such as 1, 1.0 and true). */
static PyObject *plain_dict(Dec *d, uint32_t count, Py_ssize_t *pos, int depth) {
    PyObject *r = PyDict_New();
    if (r == NULL) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        PyObject *k = decode_one(d, pos, depth + 1);
        if (k == NULL) goto fail;
        PyObject *v = decode_one(d, pos, depth + 1);
        if (v == NULL) {
            Py_DECREF(k);
            goto fail;
        }
        Py_ssize_t before = PyDict_GET_SIZE(r);
        int rc = PyDict_SetItem(r, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (rc < 0) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) goto fail;
            PyErr_Clear();
            d->merged = 1;
            goto fail;
        }
        if (PyDict_GET_SIZE(r) == before) {
            d->merged = 1;
            goto fail;
        }
    }
    return r;
fail:
    Py_DECREF(r);
    return NULL;
}

static PyObject *decode_dict(Dec *d, uint32_t header, Py_ssize_t *ppos, int depth) {
    Py_ssize_t pos = *ppos + 4;
    PyObject *key_type = Py_None, *value_type = Py_None, *pairs = NULL, *r = NULL;
    Py_INCREF(Py_None);
    Py_INCREF(Py_None);
    int key_want = WANT_NONE, value_want = WANT_NONE;
    if (d->t->typed_dicts && (header & 0xF0000)) {
        Py_DECREF(Py_None);
        key_type = container_type(d, (header >> 16) & 3, &pos, &key_want);
        if (key_type == NULL) goto done;
        Py_DECREF(Py_None);
        value_type = container_type(d, (header >> 18) & 3, &pos, &value_want);
        if (value_type == NULL) goto done;
        if (!d->t->check_values) value_want = WANT_NONE;
    }
    int typed = key_type != Py_None || value_type != Py_None;
    if (d->end - pos < 4) goto done;
    uint32_t count = rd_u32(d->p + pos) & COUNT_MASK;
    pos += 4;
    if ((Py_ssize_t)count * 8 > d->end - pos || count > d->caps.elements) goto done;
    if (count && depth + 1 > d->max_depth) goto done;
    Py_ssize_t entries = pos;
    if (!typed) {
        r = plain_dict(d, count, &pos, depth);
        if (r != NULL || PyErr_Occurred()) {
            if (r != NULL) *ppos = pos;
            goto done;
        }
        if (!d->merged) goto done;
        /* Keys Python would merge (1, 1.0, true) or cannot hash: read the entries again, as
         * pairs of a gdvariant.Dictionary. Nested, that could repeat without end; past one
         * input's worth of bytes read twice, the pure core (one pass) takes over. */
        d->merged = 0;
        if (d->reread > d->end) goto done;
        pos = entries;
    }
    {
        pairs = PyList_New(count);
        if (pairs == NULL) goto done;
        for (uint32_t i = 0; i < count; i++) {
            if (!element_fits(d, pos, key_want)) goto done; /* the pure core applies the rules */
            PyObject *k = decode_one(d, &pos, depth + 1);
            if (k == NULL) goto done;
            if (!element_fits(d, pos, value_want)) {
                Py_DECREF(k);
                goto done;
            }
            PyObject *v = decode_one(d, &pos, depth + 1);
            if (v == NULL) {
                Py_DECREF(k);
                goto done;
            }
            PyObject *pair = PyTuple_Pack(2, k, v);
            Py_DECREF(k);
            Py_DECREF(v);
            if (pair == NULL) goto done;
            PyList_SET_ITEM(pairs, i, pair);
        }
        r = PyObject_CallFunctionObjArgs(Dictionary, pairs, key_type, value_type, NULL);
        if (r != NULL) *ppos = pos;
        if (!typed) d->reread += pos - entries;
    }
done:
    Py_XDECREF(key_type);
    Py_XDECREF(value_type);
    Py_XDECREF(pairs);
    return r;
}

static PyObject *decode_array(Dec *d, uint32_t header, Py_ssize_t *ppos, int depth) {
    Py_ssize_t pos = *ppos + 4;
    PyObject *element = NULL;
    int want = WANT_NONE;
    if (d->t->typed_arrays && (header & 0x30000)) {
        element = container_type(d, (header >> 16) & 3, &pos, &want);
        if (element == NULL) return NULL;
        if (element == Py_None) Py_CLEAR(element);
    }
    PyObject *r = NULL;
    if (d->end - pos < 4) goto done;
    uint32_t count = rd_u32(d->p + pos) & COUNT_MASK;
    pos += 4;
    if ((Py_ssize_t)count * 4 > d->end - pos || count > d->caps.elements) goto done;
    if (count && depth + 1 > d->max_depth) goto done;
    r = PyList_New(count);
    if (r == NULL) goto done;
    for (uint32_t i = 0; i < count; i++) {
        /* an element of another type: the pure core converts or drops it */
        PyObject *v = element_fits(d, pos, want) ? decode_one(d, &pos, depth + 1) : NULL;
        if (v == NULL) {
            Py_CLEAR(r);
            goto done;
        }
        PyList_SET_ITEM(r, i, v);
    }
    if (element != NULL) {
        PyObject *typed = PyObject_CallFunctionObjArgs(TypedArray, element, r, NULL);
        Py_SETREF(r, typed);
        if (r == NULL) goto done;
    }
    *ppos = pos;
done:
    Py_XDECREF(element);
    return r;
}

static PyObject *decode_string_array(Dec *d, int32_t word, Py_ssize_t *ppos) {
    Py_ssize_t pos = *ppos + 8;
    if (word < 0) word = 0; /* Godot reads a negative count as an empty array */
    if ((Py_ssize_t)word * 4 > d->end - pos || word > d->caps.elements) DEFER;
    PyObject *r = new_tuple_of((PyTypeObject *)PackedStringArray, word);
    if (r == NULL) return NULL;
    for (int32_t i = 0; i < word; i++) {
        PyObject *s = read_string(d, &pos);
        if (s == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r, i, s);
    }
    *ppos = pos;
    return r;
}

static PyObject *wrap_u64(PyObject *cls, uint64_t id) {
    PyObject *r = new_tuple_of((PyTypeObject *)cls, 1);
    if (r == NULL) return NULL;
    PyObject *n = PyLong_FromUnsignedLongLong(id);
    if (n == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    PyTuple_SET_ITEM(r, 0, n);
    return r;
}

/* A packed array (header's wire type, word items) at *ppos: a view of the source, a copy, or
 * a copy converted to the build's width. */
static PyObject *decode_packed(Dec *d, uint32_t header, int32_t word, Py_ssize_t *ppos) {
    Py_ssize_t pos = *ppos, left = d->end - pos;
    const unsigned char *p = d->p + pos;
    PackedDecode *k = &d->t->packed[header & 0xFF];
    int wide = (header & d->t->packed_flag) != 0;
    Py_ssize_t size = k->itemsize[wide];
    PyObject *v;
    if (left < 8 || word < 0 || (Py_ssize_t)word * size > left - 8 || word > d->caps.elements)
        DEFER;
    if (k->convert[wide]) /* held at the build's width: a copy, never a view */
        v = packed_converted(k->held[wide], k->convert[wide], p + 8,
                             word * size / (k->convert[wide] == 'n' ? 8 : 4));
    else if (d->source != NULL)
        v = packed_view(d, (PyObject *)k->cls[wide], pos + 8, word * size);
    else
        v = packed_from(k->cls[wide], p + 8, word * size);
    if (v != NULL) *ppos = pos + 8 + word * size;
    return v;
}

/* A Signal at *ppos: its name, then its object's id. */
static PyObject *decode_signal(Dec *d, Py_ssize_t *ppos) {
    Py_ssize_t at = *ppos + 4;
    PyObject *name = read_string(d, &at), *id = NULL, *v = NULL;
    if (name == NULL) return NULL;
    if (d->end - at < 8 || (id = PyLong_FromUnsignedLongLong(rd_u64(d->p + at))) == NULL ||
        (v = new_tuple_of((PyTypeObject *)Signal, 2)) == NULL) {
        Py_DECREF(name);
        Py_XDECREF(id);
        return NULL;
    }
    PyTuple_SET_ITEM(v, 0, name);
    PyTuple_SET_ITEM(v, 1, id);
    *ppos = at + 8;
    return v;
}

static PyObject *decode_one(Dec *d, Py_ssize_t *ppos, int depth) {
    Py_ssize_t pos = *ppos;
    Py_ssize_t left = d->end - pos;
    if (left < 4) DEFER;
    const unsigned char *p = d->p + pos;
    uint32_t header = rd_u32(p);
    if (header & d->t->flag_bits) DEFER;
    int32_t word = left >= 8 ? (int32_t)rd_u32(p + 4) : 0;
    PyObject *v;
    switch (d->t->action[header & 0xFF]) {
    case A_NIL:
        *ppos = pos + 4;
        Py_RETURN_NONE;
    case A_BOOL:
        if (left < 8) DEFER;
        *ppos = pos + 8;
        return PyBool_FromLong(word != 0);
    case A_INT:
        if (header & FLAG_64) {
            if (left < 12) DEFER;
            *ppos = pos + 12;
            return PyLong_FromLongLong((long long)rd_u64(p + 4));
        }
        if (left < 8) DEFER;
        *ppos = pos + 8;
        return PyLong_FromLong(word);
    case A_FLOAT:
        if (header & FLAG_64) {
            if (left < 12) DEFER;
            *ppos = pos + 12;
            return PyFloat_FromDouble(rd_f64(p + 4));
        }
        if (left < 8) DEFER;
        *ppos = pos + 8;
        return PyFloat_FromDouble(rd_f32(p + 4));
    case A_STRING: {
        Py_ssize_t at = pos + 4;
        v = read_string(d, &at);
        if (v != NULL) *ppos = at;
        return v;
    }
    case A_STRING_NAME: {
        Py_ssize_t at = pos + 4;
        PyObject *s = read_string(d, &at);
        if (s == NULL) return NULL;
        v = PyObject_CallOneArg(StringName, s);
        Py_DECREF(s);
        if (v != NULL) *ppos = at;
        return v;
    }
    case A_MATH:
        return decode_math(d, header, ppos);
    case A_DICT:
        return decode_dict(d, header, ppos, depth);
    case A_ARRAY:
        return decode_array(d, header, ppos, depth);
    case A_BYTES:
        if (left < 8 || word < 0 || word > left - 8 || word > d->caps.length) DEFER;
        v = d->source != NULL ? packed_view(d, (PyObject *)&PyBytes_Type, pos + 8, word)
                              : PyBytes_FromStringAndSize((const char *)p + 8, word);
        if (v != NULL) *ppos = pos + 8 + word + (-word & 3);
        return v;
    case A_PACKED:
        return decode_packed(d, header, word, ppos);
    case A_STRING_ARRAY:
        if (left < 8) DEFER;
        return decode_string_array(d, word, ppos);
    case A_RID:
        if (left < 12) DEFER;
        *ppos = pos + 12;
        return wrap_u64(RID, rd_u64(p + 4));
    case A_OBJECT: {
        if (!(header & FLAG_64) || left < 12) DEFER; /* full objects: the pure core */
        uint64_t id = rd_u64(p + 4);
        *ppos = pos + 12;
        if (id == 0) Py_RETURN_NONE;
        return wrap_u64(ObjectID, id);
    }
    case A_NODE_PATH:
        return decode_node_path(d, ppos);
    case A_BARE_RID:
        *ppos = pos + 4;
        return wrap_u64(RID, 0);
    case A_BARE_OBJECT:
        *ppos = pos + 4;
        Py_RETURN_NONE;
    case A_CALLABLE:
        *ppos = pos + 4;
        Py_INCREF(CallableValue);
        return CallableValue;
    case A_SIGNAL:
        return decode_signal(d, ppos);
    default:
        DEFER;
    }
}

/* Decode from a buffer; NULL with no exception means: hand over to the pure core. With a
 * source (the object p is the memory of), packed arrays are PackedViews of it. */
static PyObject *fast_decode(Table *t, Caps caps, const unsigned char *p, Py_ssize_t size,
                             Py_ssize_t offset, PyObject *source) {
    if (offset < 0 || offset > size || size - offset > caps.size) DEFER;
    long long depth = caps.depth < C_MAX_DEPTH ? caps.depth : C_MAX_DEPTH;
    if (t->max_decode_depth >= 0 && t->max_decode_depth < depth) depth = t->max_decode_depth;
    Dec d = {p, size, t, depth, caps, 0, 0, source, NULL};
    Py_ssize_t pos = offset;
    PyObject *v = decode_one(&d, &pos, 0);
    Py_XDECREF(d.whole);
    if (v == NULL) return NULL;
    PyObject *end = PyLong_FromSsize_t(pos);
    if (end == NULL) {
        Py_DECREF(v);
        return NULL;
    }
    PyObject *r = PyTuple_New(2);
    if (r == NULL) {
        Py_DECREF(v);
        Py_DECREF(end);
        return NULL;
    }
    PyTuple_SET_ITEM(r, 0, v);
    PyTuple_SET_ITEM(r, 1, end);
    return r;
}

/* fast_decode on any buffer (bytes without the buffer protocol's cost); a buffer that cannot
 * be read simply is handed over, as is everything else the fast path cannot do. */
static PyObject *decode_data(Table *t, Caps caps, PyObject *data, Py_ssize_t offset,
                             Py_ssize_t *size, int views) {
    PyObject *source = views ? data : NULL;
    if (PyBytes_CheckExact(data)) {
        if (size) *size = PyBytes_GET_SIZE(data);
        return fast_decode(t, caps, (const unsigned char *)PyBytes_AS_STRING(data),
                           PyBytes_GET_SIZE(data), offset, source);
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return NULL;
    }
    if (size) *size = view.len;
    PyObject *r = fast_decode(t, caps, view.buf, view.len, offset, source);
    PyBuffer_Release(&view);
    return r;
}

/* The optional last argument, packed_views: 1, 0, or -1 with an exception set. */
static int views_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at) {
    return nargs > at ? PyObject_IsTrue(args[at]) : 0;
}

static PyObject *py_decode_value(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "decode_value(data, profile, allow_objects, offset, limits"
                        "[, packed_views])");
        return NULL;
    }
    int views = views_arg(args, nargs, 5);
    if (views < 0) return NULL;
    PyObject *data = args[0];
    Py_ssize_t offset = PyLong_AsSsize_t(args[3]);
    if (offset == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        goto pure;
    }
    Table *t = table_for(args[1]);
    Caps caps;
    if (t == NULL || load_limits(args[4], &caps) < 0) return NULL;
    PyObject *r = decode_data(t, caps, data, offset, NULL, views);
    if (r != NULL || PyErr_Occurred()) return r;
pure:
    return PyObject_Vectorcall(pure_decode, args, nargs, NULL);
}

/* bytes_to_var: the one value data holds, with nothing after it. Trailing bytes and anything
 * off the fast path go to the pure core's decode_whole, which raises the reference error.
 * decode_whole(data, profile, allow_objects, limits[, packed_views]) -> value */
static PyObject *py_decode_whole(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "decode_whole(data, profile, allow_objects, limits[, packed_views])");
        return NULL;
    }
    int views = views_arg(args, nargs, 4);
    if (views < 0) return NULL;
    Table *t = table_for(args[1]);
    Caps caps;
    if (t == NULL || load_limits(args[3], &caps) < 0) return NULL;
    Py_ssize_t size = 0;
    PyObject *r = decode_data(t, caps, args[0], 0, &size, views);
    if (r == NULL && PyErr_Occurred()) return NULL;
    if (r != NULL) {
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(r, 1));
        if (end >= size) {
            PyObject *v = PyTuple_GET_ITEM(r, 0);
            Py_INCREF(v);
            Py_DECREF(r);
            return v;
        }
        Py_DECREF(r);
    }
    return PyObject_Vectorcall(pure_whole, args, nargs, NULL);
}

/* The fast path alone, for tests and fuzzing: (value, end), or None where the call would be
 * handed to the pure core. */
static PyObject *py_fast_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "fast_path_decode(data, profile, limits)");
        return NULL;
    }
    Table *t = table_for(args[1]);
    Caps caps;
    if (t == NULL || load_limits(args[2], &caps) < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *r = fast_decode(t, caps, view.buf, view.len, 0, NULL);
    PyBuffer_Release(&view);
    if (r == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return r;
}

/* The stream decoder's hot path: whole frames (a u32 length, then the value) from the start of
 * a buffer, decoded in place without copying each frame out. It stops at the first frame it
 * cannot finish: one not fully received, a length out of range, or a value the fast path hands
 * over; the caller goes on from there in Python, which reports the error the reference way.
 * decode_frames(buffer, start, big_endian, max_frame_size, profile, limits) -> (values, end) */
static PyObject *py_decode_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "decode_frames(buffer, start, big_endian, max_frame_size, profile, "
                        "limits)");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    int big_endian = PyObject_IsTrue(args[2]);
    long long max_frame = PyLong_AsLongLong(args[3]);
    if (PyErr_Occurred() || big_endian < 0) return NULL;
    Table *t = table_for(args[4]);
    Caps caps;
    if (t == NULL || load_limits(args[5], &caps) < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = view.buf;
    PyObject *values = PyList_New(0);
    if (values == NULL) goto fail;
    if (pos < 0) pos = view.len; /* nothing to do */
    while (view.len - pos >= 4) {
        const unsigned char *q = p + pos;
        int32_t size = (int32_t)(big_endian
                                     ? ((uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
                                        (uint32_t)q[2] << 8 | q[3])
                                     : rd_u32(q));
        if (size <= 0 || size > max_frame || view.len - pos - 4 < size) break;
        PyObject *r = fast_decode(t, caps, q + 4, size, 0, NULL);
        if (r == NULL) {
            if (PyErr_Occurred()) goto fail;
            break;
        }
        int rc = PyList_Append(values, PyTuple_GET_ITEM(r, 0));
        Py_DECREF(r);
        if (rc < 0) goto fail;
        pos += 4 + (Py_ssize_t)size;
    }
    PyBuffer_Release(&view);
    PyObject *end = PyLong_FromSsize_t(pos);
    if (end == NULL) {
        Py_DECREF(values);
        return NULL;
    }
    PyObject *out = PyTuple_Pack(2, values, end);
    Py_DECREF(values);
    Py_DECREF(end);
    return out;
fail:
    Py_XDECREF(values);
    PyBuffer_Release(&view);
    return NULL;
}

/* ---- encoding ----------------------------------------------------------------------------- */

/* Output starts in a buffer on the C stack; a larger value moves into a bytes object that
 * grows in place and is shrunk to size at the end, so big outputs are copied only once. */
#define STACK_OUT 1024

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
    PyObject *bytes; /* NULL while buf is the stack buffer */
    Table *t;
    long long max_depth;
} Enc;

static int grow(Enc *e, Py_ssize_t need) {
    if (e->len + need <= e->cap) return 0;
    if (e->cap > PY_SSIZE_T_MAX / 2 || need > PY_SSIZE_T_MAX / 2 - e->len) {
        PyErr_NoMemory();
        return -1;
    }
    /* Doubling, or just enough for one big block (a packed array): an exact size then needs
     * no shrinking, which would defeat malloc's reuse of the block on the next call. */
    Py_ssize_t cap = e->cap * 2;
    if (cap < e->len + need) cap = e->len + need;
    if (e->bytes == NULL) {
        e->bytes = PyBytes_FromStringAndSize(NULL, cap);
        if (e->bytes == NULL) return -1;
        memcpy(PyBytes_AS_STRING(e->bytes), e->buf, (size_t)e->len);
    } else if (_PyBytes_Resize(&e->bytes, cap) < 0) {
        return -1;
    }
    e->buf = PyBytes_AS_STRING(e->bytes);
    e->cap = cap;
    return 0;
}

static inline void put_u32(Enc *e, uint32_t v) {
    unsigned char *q = (unsigned char *)e->buf + e->len;
    q[0] = (unsigned char)v;
    q[1] = (unsigned char)(v >> 8);
    q[2] = (unsigned char)(v >> 16);
    q[3] = (unsigned char)(v >> 24);
    e->len += 4;
}
static inline void put_u64(Enc *e, uint64_t v) {
    put_u32(e, (uint32_t)v);
    put_u32(e, (uint32_t)(v >> 32));
}
static inline void put_f32(Enc *e, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(e, u);
}
static inline void put_f64(Enc *e, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    put_u64(e, u);
}

/* Result codes of the writers: 0 written, -1 a Python error, 1 hand over to the pure core. */
#define HAND_OVER 1

/* UTF-8 of a str; NUL, lone surrogates and the like go to the pure core (which says why). */
static int utf8_of(PyObject *s, const char **out, Py_ssize_t *n) {
    *out = PyUnicode_AsUTF8AndSize(s, n);
    if (*out == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        return HAND_OVER;
    }
    if (*n > 0xFFFFFFF0 || memchr(*out, 0, (size_t)*n) != NULL) return HAND_OVER;
    return 0;
}

/* Item i of a value type's tuple of `size` items as a u64 (an RID's or ObjectID's id, a
   Signal's object id); anything but an exact int that fits goes to the pure core. */
static int tuple_u64(PyObject *v, Py_ssize_t size, Py_ssize_t i, unsigned long long *out) {
    if (PyTuple_GET_SIZE(v) != size || !PyLong_CheckExact(PyTuple_GET_ITEM(v, i)))
        return HAND_OVER;
    *out = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(v, i));
    if (*out == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return HAND_OVER;
    }
    return 0;
}

/* A String after its header: u32 length, bytes, zero padding. */
static int put_string(Enc *e, PyObject *s, Py_ssize_t extra) {
    const char *u;
    Py_ssize_t n;
    if (!PyUnicode_Check(s)) return HAND_OVER;
    int rc = utf8_of(s, &u, &n);
    if (rc) return rc;
    Py_ssize_t total = n + extra; /* extra: the NUL a PackedStringArray element counts */
    if (grow(e, 8 + total) < 0) return -1;
    put_u32(e, (uint32_t)total);
    memcpy(e->buf + e->len, u, (size_t)n);
    e->len += n;
    Py_ssize_t pad = (-total & 3) + extra;
    memset(e->buf + e->len, 0, (size_t)pad);
    e->len += pad;
    return 0;
}

static int put_bytes_block(Enc *e, uint32_t header, const char *s, Py_ssize_t n, int pad) {
    if (n > 0xFFFFFFFF || grow(e, 12 + n) < 0) return n > 0xFFFFFFFF ? HAND_OVER : -1;
    put_u32(e, header);
    put_u32(e, (uint32_t)n);
    memcpy(e->buf + e->len, s, (size_t)n);
    e->len += n;
    if (pad) {
        memset(e->buf + e->len, 0, (size_t)(-n & 3));
        e->len += -n & 3;
    }
    return 0;
}

static int put_component(Enc *e, char code, PyObject *c) {
    if (code == 'i') {
        if (!PyLong_CheckExact(c)) return HAND_OVER;
        long long v = PyLong_AsLongLong(c);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return HAND_OVER;
        }
        if (v < INT32_MIN || v > INT32_MAX) return HAND_OVER;
        put_u32(e, (uint32_t)(int32_t)v);
        return 0;
    }
    if (!PyFloat_CheckExact(c)) return HAND_OVER;
    double x = PyFloat_AS_DOUBLE(c);
    if (code == 'd') {
        put_f64(e, x);
        return 0;
    }
    float f = (float)x;
    if (isnan(x) || (isinf(f) && !isinf(x))) return HAND_OVER; /* struct's own rules */
    put_f32(e, f);
    return 0;
}

static int encode_math(Enc *e, EncodeEntry *m, PyObject *v) {
    PyObject *flat = m->flat ? (Py_INCREF(v), v) : PyObject_CallOneArg(m->flatten, v);
    if (flat == NULL) {
        PyErr_Clear();
        return HAND_OVER;
    }
    int rc = HAND_OVER;
    if (PyTuple_Check(flat) && PyTuple_GET_SIZE(flat) == m->components) {
        Py_ssize_t start = e->len;
        rc = grow(e, 4 + 8 * m->components);
        if (rc == 0) {
            put_u32(e, m->header);
            for (int i = 0; i < m->components && rc == 0; i++)
                rc = put_component(e, m->code, PyTuple_GET_ITEM(flat, i));
        }
        if (rc) e->len = start;
    }
    Py_DECREF(flat);
    return rc;
}

static int encode_one(Enc *e, PyObject *v, long long depth);

/* A PackedView: its bytes as the array of its kind, when that kind is written as one block
 * (a kind the profile converts or lacks is handed over with the rest). */
static int encode_view(Enc *e, PyObject *v) {
    PyObject *kind = PyObject_GetAttrString(v, "_kind");
    if (kind == NULL) return -1;
    PyObject *index = PyDict_GetItemWithError(e->t->classes, kind);
    Py_DECREF(kind); /* the table's dict holds the class */
    if (index == NULL) return PyErr_Occurred() ? -1 : HAND_OVER;
    EncodeEntry *m = &e->t->entries[PyLong_AsSsize_t(index)];
    if (m->entry != E_PACKED && m->entry != E_BYTES) return HAND_OVER;
    PyObject *data = PyObject_GetAttrString(v, "_data");
    if (data == NULL) return -1;
    Py_buffer b;
    int rc = PyObject_GetBuffer(data, &b, PyBUF_SIMPLE);
    Py_DECREF(data);
    if (rc < 0) return -1;
    Py_ssize_t n = b.len;
    if (m->entry == E_BYTES) {
        rc = put_bytes_block(e, m->header, b.buf, n, 1);
    } else if (n % m->itemsize || n / m->itemsize > 0xFFFFFFFF) {
        rc = HAND_OVER;
    } else if ((rc = grow(e, 8 + n)) == 0) {
        put_u32(e, m->header);
        put_u32(e, (uint32_t)(n / m->itemsize));
        memcpy(e->buf + e->len, b.buf, (size_t)n);
        e->len += n;
    }
    PyBuffer_Release(&b);
    return rc;
}

static int encode_child(Enc *e, PyObject *v, long long depth) {
    if (depth > e->max_depth) return HAND_OVER;
    return encode_one(e, v, depth);
}

static int encode_entry(Enc *e, PyObject *v, long long depth) {
    PyObject *index = PyDict_GetItemWithError(e->t->classes, (PyObject *)Py_TYPE(v));
    if (index == NULL) return PyErr_Occurred() ? -1 : HAND_OVER;
    EncodeEntry *m = &e->t->entries[PyLong_AsSsize_t(index)];
    int rc;
    switch (m->entry) {
    case E_STRING_NAME:
        if (grow(e, 4) < 0) return -1;
        put_u32(e, m->header);
        return put_string(e, v, 0);
    case E_MATH:
        return encode_math(e, m, v);
    case E_PACKED: {
        Py_ssize_t n = PyBytes_GET_SIZE(v);
        if (n % m->itemsize || n / m->itemsize > 0xFFFFFFFF) return HAND_OVER;
        if (grow(e, 8 + n) < 0) return -1;
        put_u32(e, m->header);
        put_u32(e, (uint32_t)(n / m->itemsize));
        memcpy(e->buf + e->len, PyBytes_AS_STRING(v), (size_t)n);
        e->len += n;
        return 0;
    }
    case E_STRING_ARRAY: {
        Py_ssize_t n = PyTuple_GET_SIZE(v);
        if (n > 0xFFFFFFFF || grow(e, 8) < 0) return n > 0xFFFFFFFF ? HAND_OVER : -1;
        put_u32(e, m->header);
        put_u32(e, (uint32_t)n);
        for (Py_ssize_t i = 0; i < n; i++)
            if ((rc = put_string(e, PyTuple_GET_ITEM(v, i), 1))) return rc;
        return 0;
    }
    case E_BYTES:
        if (PyBytes_CheckExact(v))
            return put_bytes_block(e, m->header, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v), 1);
        return put_bytes_block(e, m->header, PyByteArray_AS_STRING(v), PyByteArray_GET_SIZE(v),
                               1);
    case E_RID:
    case E_OBJECT_ID: {
        unsigned long long id;
        if (tuple_u64(v, 1, 0, &id)) return HAND_OVER;
        if (grow(e, 12) < 0) return -1;
        if (m->entry == E_OBJECT_ID) {
            put_u32(e, m->header | FLAG_64);
            put_u64(e, id);
        } else if (e->t->rid_payload) {
            put_u32(e, m->header);
            put_u64(e, id);
        } else if (id == 0) {
            put_u32(e, m->header);
        } else {
            return HAND_OVER;
        }
        return 0;
    }
    case E_NODE_PATH: {
        if (PyTuple_GET_SIZE(v) != 3) return HAND_OVER;
        PyObject *names = PyTuple_GET_ITEM(v, 0), *subs = PyTuple_GET_ITEM(v, 1);
        PyObject *absolute = PyTuple_GET_ITEM(v, 2);
        if (!PyTuple_CheckExact(names) || !PyTuple_CheckExact(subs) || !PyBool_Check(absolute))
            return HAND_OVER;
        Py_ssize_t nn = PyTuple_GET_SIZE(names), ns = PyTuple_GET_SIZE(subs);
        if (nn > (Py_ssize_t)COUNT_MASK || ns > 0xFFFFFFFF) return HAND_OVER;
        if (grow(e, 16) < 0) return -1;
        put_u32(e, m->header);
        put_u32(e, (uint32_t)nn | 0x80000000u);
        put_u32(e, (uint32_t)ns);
        put_u32(e, absolute == Py_True ? 1 : 0);
        for (Py_ssize_t i = 0; i < nn + ns; i++) {
            PyObject *part = i < nn ? PyTuple_GET_ITEM(names, i) : PyTuple_GET_ITEM(subs, i - nn);
            if (!PyUnicode_CheckExact(part)) return HAND_OVER;
            if ((rc = put_string(e, part, 0))) return rc;
        }
        return 0;
    }
    case E_CALLABLE:
        if (grow(e, 4) < 0) return -1;
        put_u32(e, m->header);
        return 0;
    case E_SIGNAL: {
        unsigned long long id;
        if (tuple_u64(v, 2, 1, &id)) return HAND_OVER;
        if (grow(e, 4) < 0) return -1;
        put_u32(e, m->header);
        if ((rc = put_string(e, PyTuple_GET_ITEM(v, 0), 0))) return rc;
        if (grow(e, 8) < 0) return -1;
        put_u64(e, id);
        return 0;
    }
    default:
        return HAND_OVER;
    }
    (void)depth;
}

/* The kind bits and type info of a typed container's element type (``_type_info``): None or
 * NONE -> 0; a builtin type -> 1 and its wire id. Class and script names: the pure core. */
static int type_info(Enc *e, PyObject *spec, uint32_t *kind, int *wire) {
    if (spec == Py_None) {
        *kind = 0;
        return 0;
    }
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3) return HAND_OVER;
    long k = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (k == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return HAND_OVER;
    }
    if (k == 0) {
        *kind = 0;
        return 0;
    }
    if (k != builtin_kind) return HAND_OVER;
    PyObject *w = PyDict_GetItemWithError(e->t->wire_of, PyTuple_GET_ITEM(spec, 1));
    if (w == NULL) return PyErr_Occurred() ? -1 : HAND_OVER;
    *kind = 1;
    *wire = (int)PyLong_AsLong(w);
    return 0;
}

/* The items of a list, each held while written: a class's Python code may let another thread
 * change the list, and a list that changed size is left to the pure core. */
static int encode_children(Enc *e, PyObject *list, long long depth) {
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_GET_SIZE(list) != n) return HAND_OVER;
        PyObject *item = PyList_GET_ITEM(list, i);
        Py_INCREF(item);
        int rc = encode_child(e, item, depth + 1);
        Py_DECREF(item);
        if (rc) return rc;
    }
    return PyList_GET_SIZE(list) == n ? 0 : HAND_OVER;
}

static int encode_typed_array(Enc *e, PyObject *v, long long depth) {
    Table *t = e->t;
    Py_ssize_t n = PyList_GET_SIZE(v);
    if (t->typed_array_mode == 0 || n > (Py_ssize_t)COUNT_MASK) return HAND_OVER;
    if (grow(e, 12) < 0) return -1;
    if (t->typed_array_mode == 2) { /* 4.0-4.2 write it as a plain Array */
        put_u32(e, t->h_array);
        put_u32(e, (uint32_t)n | t->count_flag);
        return encode_children(e, v, depth);
    }
    PyObject *spec = PyObject_GetAttrString(v, "element_type");
    if (spec == NULL) return -1;
    uint32_t kind;
    int wire = 0;
    int rc = type_info(e, spec, &kind, &wire);
    Py_DECREF(spec);
    if (rc) return rc;
    put_u32(e, t->h_array | kind << 16);
    if (kind) put_u32(e, (uint32_t)wire);
    put_u32(e, (uint32_t)n);
    return encode_children(e, v, depth);
}

static int encode_dictionary(Enc *e, PyObject *v, long long depth) {
    Table *t = e->t;
    PyObject *kt = PyObject_GetAttrString(v, "key_type");
    PyObject *vt = PyObject_GetAttrString(v, "value_type");
    PyObject *pairs = PyObject_GetAttrString(v, "items_list");
    int rc = -1;
    uint32_t kk = 0, vk = 0;
    int kw = 0, vw = 0;
    if (kt == NULL || vt == NULL || pairs == NULL) goto done;
    rc = HAND_OVER;
    if (!PyTuple_CheckExact(pairs) || PyTuple_GET_SIZE(pairs) > (Py_ssize_t)COUNT_MASK) goto done;
    if (kt != Py_None || vt != Py_None) {
        if (!t->typed_dicts_out) goto done;
        if ((rc = type_info(e, kt, &kk, &kw)) || (rc = type_info(e, vt, &vk, &vw))) goto done;
    }
    if ((rc = grow(e, 16)) < 0) goto done;
    put_u32(e, t->h_dict | kk << 16 | vk << 18);
    if (kk) put_u32(e, (uint32_t)kw);
    if (vk) put_u32(e, (uint32_t)vw);
    put_u32(e, (uint32_t)PyTuple_GET_SIZE(pairs) | t->count_flag);
    rc = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs) && rc == 0; i++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            rc = HAND_OVER;
        } else if (!(rc = encode_child(e, PyTuple_GET_ITEM(pair, 0), depth + 1))) {
            rc = encode_child(e, PyTuple_GET_ITEM(pair, 1), depth + 1);
        }
    }
done:
    Py_XDECREF(kt);
    Py_XDECREF(vt);
    Py_XDECREF(pairs);
    return rc;
}

static int encode_one(Enc *e, PyObject *v, long long depth) {
    Table *t = e->t;
    PyTypeObject *type = Py_TYPE(v);
    int rc;
    if (type == &PyLong_Type) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow) return HAND_OVER;
        if (x == -1 && PyErr_Occurred()) return -1;
        if (grow(e, 12) < 0) return -1;
        if (x >= INT32_MIN && x <= INT32_MAX && !t->int_always_64) {
            put_u32(e, t->h_int);
            put_u32(e, (uint32_t)(int32_t)x);
        } else if (!t->int64) {
            return HAND_OVER;
        } else {
            put_u32(e, t->h_int | FLAG_64);
            put_u64(e, (uint64_t)x);
        }
        return 0;
    }
    if (type == &PyUnicode_Type) {
        if (grow(e, 4) < 0) return -1;
        put_u32(e, t->h_string);
        return put_string(e, v, 0);
    }
    if (type == &PyFloat_Type) {
        double x = PyFloat_AS_DOUBLE(v);
        float f = (float)x;
        if (grow(e, 12) < 0) return -1;
        if (!t->float64) { /* Godot 2 narrows every float */
            if (!isfinite(x) || isinf(f)) return HAND_OVER;
            put_u32(e, t->h_float);
            put_f32(e, f);
        } else if (!(isinf(f) && !isinf(x)) && (double)f == x) { /* float32 round-trips */
            put_u32(e, t->h_float);
            put_f32(e, f);
        } else {
            put_u32(e, t->h_float | FLAG_64);
            put_f64(e, x);
        }
        return 0;
    }
    if (type == &PyBool_Type) {
        if (grow(e, 8) < 0) return -1;
        put_u32(e, t->h_bool);
        put_u32(e, v == Py_True ? 1 : 0);
        return 0;
    }
    if (v == Py_None) {
        if (grow(e, 4) < 0) return -1;
        put_u32(e, t->h_nil);
        return 0;
    }
    if (type == &PyList_Type || type == &PyTuple_Type) {
        Py_ssize_t n = Py_SIZE(v);
        if (n > (Py_ssize_t)COUNT_MASK || grow(e, 8) < 0) return n > COUNT_MASK ? HAND_OVER : -1;
        put_u32(e, t->h_array);
        put_u32(e, (uint32_t)n | t->count_flag);
        if (type == &PyList_Type) return encode_children(e, v, depth);
        for (Py_ssize_t i = 0; i < n; i++)
            if ((rc = encode_child(e, PyTuple_GET_ITEM(v, i), depth + 1))) return rc;
        return 0;
    }
    if (type == &PyDict_Type) {
        Py_ssize_t n = PyDict_GET_SIZE(v), i = 0;
        if (n > (Py_ssize_t)COUNT_MASK || grow(e, 8) < 0) return n > COUNT_MASK ? HAND_OVER : -1;
        put_u32(e, t->h_dict);
        put_u32(e, (uint32_t)n | t->count_flag);
        PyObject *key, *value;
        while (PyDict_Next(v, &i, &key, &value)) {
            /* Held while written: a class's Python code may let another thread change the
             * dict. A dict that changed size is left to the pure core. */
            Py_INCREF(key);
            Py_INCREF(value);
            rc = encode_child(e, key, depth + 1);
            if (rc == 0) rc = encode_child(e, value, depth + 1);
            Py_DECREF(key);
            Py_DECREF(value);
            if (rc) return rc;
        }
        return PyDict_GET_SIZE(v) == n ? 0 : HAND_OVER;
    }
    if (type == (PyTypeObject *)TypedArray) return encode_typed_array(e, v, depth);
    if (type == (PyTypeObject *)Dictionary) return encode_dictionary(e, v, depth);
    if (type == (PyTypeObject *)PackedViewType) return encode_view(e, v);
    return encode_entry(e, v, depth);
}

/* Encode on the fast path; NULL without an exception means: hand over to the pure core. */
static PyObject *fast_encode(PyObject *value, PyObject *profile) {
    Table *t = table_for(profile);
    if (t == NULL) return NULL;
    long long limit = t->max_encode_depth;
    char stack[STACK_OUT];
    Enc e = {stack, 0, STACK_OUT, NULL, t,
             (limit < 0 || limit > C_MAX_DEPTH) ? C_MAX_DEPTH : limit};
    int rc = encode_one(&e, value, 0);
    if (rc != 0) {
        Py_XDECREF(e.bytes);
        return NULL;
    }
    if (e.bytes == NULL) return PyBytes_FromStringAndSize(stack, e.len);
    if (_PyBytes_Resize(&e.bytes, e.len) < 0) return NULL;
    return e.bytes;
}

static PyObject *py_encode_value(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "encode_value(value, profile, full_objects)");
        return NULL;
    }
    PyObject *r = fast_encode(args[0], args[1]);
    if (r != NULL || PyErr_Occurred()) return r;
    return PyObject_Vectorcall(pure_encode, args, 3, NULL);
}

static PyObject *py_fast_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "fast_path_encode(value, profile)");
        return NULL;
    }
    PyObject *r = fast_encode(args[0], args[1]);
    if (r == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return r;
}

static PyMethodDef methods[] = {
    {"decode_value", (PyCFunction)(void (*)(void))py_decode_value, METH_FASTCALL,
     "decode_value(data, profile, allow_objects, offset, limits) -> (value, end)"},
    {"decode_whole", (PyCFunction)(void (*)(void))py_decode_whole, METH_FASTCALL,
     "decode_whole(data, profile, allow_objects, limits) -> value: bytes_to_var, no leftovers"},
    {"encode_value", (PyCFunction)(void (*)(void))py_encode_value, METH_FASTCALL,
     "encode_value(value, profile, full_objects) -> bytes"},
    {"fast_path_decode", (PyCFunction)(void (*)(void))py_fast_decode, METH_FASTCALL,
     "fast_path_decode(data, profile, limits) -> (value, end), or None if it hands over"},
    {"fast_path_encode", (PyCFunction)(void (*)(void))py_fast_encode, METH_FASTCALL,
     "fast_path_encode(value, profile) -> bytes, or None if it hands over"},
    {"decode_frames", (PyCFunction)(void (*)(void))py_decode_frames, METH_FASTCALL,
     "decode_frames(buffer, start, big_endian, max_frame_size, profile, limits) -> "
     "(values, end): the stream decoder's hot path"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._binary._cgdvariant",
    "The compiled core of gdvariant (the pure-Python core is the reference).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cgdvariant(void) { return PyModule_Create(&module); }
