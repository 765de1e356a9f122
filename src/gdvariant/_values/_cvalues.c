/* Compiled constructors of the math value types (gdvariant._values._cvalues).
 *
 * A value type such as Vector2 is an immutable tuple subclass whose __new__ turns each
 * argument into a float (or, for the integer vectors, an int through __index__). Written in
 * Python, that __new__ costs about 0.2 us, which a game server that builds thousands of
 * vectors a tick pays on every one. A Constructor here does the same work in C and stands in
 * for the Python __new__ (see constructors.py, the switch): the same arguments (positional or
 * by field name, with the same defaults), the same conversions (float() or operator.index()
 * of each), the same errors (TypeError for a bad call, whatever the conversion raises).
 * A class built through one also frees its values itself and keeps their memory for the
 * next ones ("freeing a value" below; docs/multiplayer-performance.md, "A property write,
 * instruction by instruction").
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <structmember.h>

#define MAX_FIELDS 4

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int ints;                        /* 0: each field float(); 1: each field operator.index() */
    Py_ssize_t count;                /* fields: 1 to MAX_FIELDS */
    PyObject *names;                 /* tuple of str: the fields' names, for keywords */
    PyObject *defaults[MAX_FIELDS];  /* what a field not given is */
    PyObject *wrapped;               /* the Python __new__ it stands in for (its signature) */
} Constructor;

static PyObject *convert(const Constructor *self, PyObject *value) {
    if (self->ints) {
        return PyNumber_Index(value);
    }
    if (PyFloat_CheckExact(value)) {
        Py_INCREF(value);
        return value;
    }
    if (PyLong_CheckExact(value)) {
        /* what float() of an int does (its nb_float), without the generic lookup first: a
         * game's vectors are often built from ints (a tick, an index, a grid cell) */
        double x = PyLong_AsDouble(value);
        if (x == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        return PyFloat_FromDouble(x);
    }
    return PyNumber_Float(value);
}

/* The fields from keywords, into given[] (borrowed; NULL where not given). */
static int take_keywords(const Constructor *self, PyTypeObject *cls, PyObject *const *values,
                         PyObject *kwnames, PyObject **given) {
    Py_ssize_t count = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t field = -1;
        for (Py_ssize_t i = 0; i < self->count; i++) {
            int same = PyUnicode_Compare(key, PyTuple_GET_ITEM(self->names, i));
            if (same == -1 && PyErr_Occurred()) {
                return -1;
            }
            if (same == 0) {
                field = i;
                break;
            }
        }
        if (field < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                         cls->tp_name, key);
            return -1;
        }
        if (given[field] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'",
                         cls->tp_name, key);
            return -1;
        }
        given[field] = values[k];
    }
    return 0;
}

static void install(Constructor *self, PyTypeObject *cls);
static void vector_dealloc(PyObject *op);

/* Spare values: the memory of freed values of the bare classes (see "freeing a value"),
 * by size, for the next ones. A server replaces thousands of vectors a tick, each freed just
 * after its successor is made: keeping the block saves the allocator and the GC's bookkeeping
 * twice (about 200 instructions a vector). Each spare is untracked, holds no items and no
 * reference to its class; PyObject_InitVar makes it a new object again, as CPython's own
 * tuple free list does. Not in a build without the GIL, where a static list is not safe. */
#ifndef Py_GIL_DISABLED
#define SPARES 64
static PyObject *spares[MAX_FIELDS + 1][SPARES];
static int nspares[MAX_FIELDS + 1];
#endif

/* A new, untracked cls value of count items, each NULL (not yet set). */
static PyObject *value_alloc(PyTypeObject *cls, Py_ssize_t count) {
    PyObject *op = NULL;
#ifndef Py_GIL_DISABLED
    if (cls->tp_dealloc == vector_dealloc && nspares[count] > 0) {
        op = spares[count][--nspares[count]];
        for (Py_ssize_t i = 0; i < count; i++) {
            PyTuple_SET_ITEM(op, i, NULL);
        }
        PyObject_InitVar((PyVarObject *)op, cls, count);
    }
#endif
    if (op == NULL) {
        op = cls->tp_alloc(cls, count);
        if (op == NULL) {
            return NULL;
        }
        /* Only floats or ints inside, and no __dict__: it can be part of no cycle, so the
         * cyclic GC need not walk it. CPython untracks such plain tuples itself, but never a
         * subclass's; a server's thousands of vectors a tick would otherwise be walked,
         * promoted and walked again in every full collection. */
        PyObject_GC_UnTrack(op);
    }
#if PY_VERSION_HEX >= 0x030E0000
    /* Python 3.14 caches a tuple's hash in it: unset, as CPython's own tuples start (a
     * zeroed or recycled field would read as a hash already computed) */
    ((PyTupleObject *)op)->ob_hash = -1;
#endif
    return op;
}

/* A new cls value from positional arguments args[0:positional] and keyword ones after them
 * (named by kwnames), as the Python __new__ takes them. */
static PyObject *build(const Constructor *self, PyTypeObject *cls, PyObject *const *args,
                       Py_ssize_t positional, PyObject *kwnames) {
    if (positional > self->count) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd arguments (%zd given)",
                     cls->tp_name, self->count, positional);
        return NULL;
    }
    PyObject *given[MAX_FIELDS] = {NULL, NULL, NULL, NULL};
    for (Py_ssize_t i = 0; i < positional; i++) {
        given[i] = args[i];
    }
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0 &&
        take_keywords(self, cls, args + positional, kwnames, given) < 0) {
        return NULL;
    }
    PyObject *result = value_alloc(cls, self->count);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->count; i++) {
        PyObject *item = convert(self, given[i] != NULL ? given[i] : self->defaults[i]);
        if (item == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, item);
    }
    return result;
}

static PyObject *construct(PyObject *callable, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames) {
    Constructor *self = (Constructor *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs < 1 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "a value type's __new__ needs the type first");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    if (cls->tp_vectorcall == NULL) {
        install(self, cls);
    }
    return build(self, cls, args + 1, nargs - 1, kwnames);
}

/* ---- calling the class itself -------------------------------------------------------
 * Vector2(3, 4) goes through type.__call__: it finds __new__ in the class, packs the
 * arguments into a tuple, calls this constructor through the staticmethod, then calls
 * object.__init__, about half of the whole call's cost. A class whose own __new__ is one of
 * these constructors and whose __init__ is object's gets, the first time it is built, a
 * vectorcall of its own that calls the constructor directly: what type.__call__ would do,
 * without the detours. Subclasses do not inherit it (CPython never inherits tp_vectorcall)
 * and keep type.__call__, so one that defines __init__ still has it called. */

#define MAX_CLASSES 32

static struct {
    PyTypeObject *cls;
    Constructor *constructor;
} classes[MAX_CLASSES];
static int nclasses;
static PyObject *s_new, *s_func; /* "__new__", "__func__" */

static PyObject *class_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames) {
    Constructor *self = NULL;
    for (int i = 0; i < nclasses; i++) {
        if ((PyObject *)classes[i].cls == callable) {
            self = classes[i].constructor;
            break;
        }
    }
    if (self == NULL) { /* not one of ours: cannot happen, a class's vectorcall is set once */
        PyErr_Format(PyExc_TypeError, "%s() has no compiled constructor",
                     ((PyTypeObject *)callable)->tp_name);
        return NULL;
    }
    return build(self, (PyTypeObject *)callable, args, PyVectorcall_NARGS(nargsf), kwnames);
}

/* ---- freeing a value ----------------------------------------------------------------
 * A value type is a Python class, so its instances die through CPython's subtype_dealloc:
 * it walks the class's bases twice (for a dealloc that is not its own, then clearing each
 * base's slots), untracks and tracks the value again around the trashcan, and calls the
 * tuple's dealloc, about 370 instructions for a Vector2, which a game server pays for each
 * vector it replaces a tick. A class whose instances are bare tuples (no __dict__, no
 * __weakref__, no slots of its own, no __del__) needs none of that: vector_dealloc does what
 * the tuple's dealloc does for a subclass (untrack, release each item, tp_free) and releases
 * the class, as every heap type's dealloc does. Its subclasses keep subtype_dealloc (CPython
 * gives every class made by a class statement its own), which clears what a subclass adds
 * and then calls this one as its base's dealloc, as it would call the tuple's. */

static void vector_dealloc(PyObject *op) {
    PyTypeObject *tp = Py_TYPE(op);
    Py_ssize_t count = Py_SIZE(op);
    PyObject_GC_UnTrack(op);
    Py_TRASHCAN_BEGIN(op, vector_dealloc)
    for (Py_ssize_t i = count; --i >= 0;) {
        Py_XDECREF(PyTuple_GET_ITEM(op, i));
    }
#ifndef Py_GIL_DISABLED
    /* a bare class's own value (not a subclass's, freed here as its base's) keeps its block */
    if (tp->tp_dealloc == vector_dealloc && count >= 1 && count <= MAX_FIELDS &&
        nspares[count] < SPARES) {
        spares[count][nspares[count]++] = op;
    } else
#endif
    {
        tp->tp_free(op);
    }
    Py_DECREF(tp);
    Py_TRASHCAN_END
}

/* Whether cls's instances are bare tuples: nothing in them for subtype_dealloc to do. */
static int bare_tuple_class(PyTypeObject *cls) {
    return (cls->tp_flags & Py_TPFLAGS_HEAPTYPE) && PyType_IsSubtype(cls, &PyTuple_Type) &&
           cls->tp_basicsize == PyTuple_Type.tp_basicsize &&
           cls->tp_itemsize == PyTuple_Type.tp_itemsize && cls->tp_dictoffset == 0 &&
           cls->tp_weaklistoffset == 0 && cls->tp_finalize == NULL && cls->tp_del == NULL &&
           cls->tp_free == PyObject_GC_Del;
}

/* Give cls its own vectorcall when its __new__ is self and its __init__ object's, and
 * vector_dealloc when its instances are bare tuples. */
static void install(Constructor *self, PyTypeObject *cls) {
    if (nclasses >= MAX_CLASSES || Py_TYPE(cls) != &PyType_Type ||
        cls->tp_init != PyBaseObject_Type.tp_init || cls->tp_dict == NULL) {
        return;
    }
    PyObject *new = PyDict_GetItemWithError(cls->tp_dict, s_new); /* borrowed */
    PyObject *inner = new != NULL ? PyObject_GetAttr(new, s_func) : NULL;
    if (inner == NULL) {
        PyErr_Clear();
        return;
    }
    Py_DECREF(inner); /* only compared */
    if (inner != (PyObject *)self) {
        return;
    }
    Py_INCREF(cls);
    Py_INCREF(self);
    classes[nclasses].cls = cls;
    classes[nclasses++].constructor = self;
    cls->tp_vectorcall = class_call;
    if (bare_tuple_class(cls)) {
        cls->tp_dealloc = vector_dealloc;
    }
}

static void constructor_dealloc(Constructor *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->names);
    Py_CLEAR(self->wrapped);
    for (Py_ssize_t i = 0; i < MAX_FIELDS; i++) {
        Py_CLEAR(self->defaults[i]);
    }
    PyObject_GC_Del(self);
}

static int constructor_traverse(Constructor *self, visitproc visit, void *arg) {
    Py_VISIT(self->names);
    Py_VISIT(self->wrapped);
    for (Py_ssize_t i = 0; i < MAX_FIELDS; i++) {
        Py_VISIT(self->defaults[i]);
    }
    return 0;
}

static PyMemberDef constructor_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(Constructor, wrapped), READONLY,
     "The Python __new__ this one stands in for: inspect.signature() reads it."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject ConstructorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gdvariant._values._cvalues.Constructor",
    .tp_doc = "A value type's __new__, compiled: constructor(ints, names, defaults, wrapped).",
    .tp_basicsize = sizeof(Constructor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Constructor, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_dealloc = (destructor)constructor_dealloc,
    .tp_traverse = (traverseproc)constructor_traverse,
    .tp_members = constructor_members,
};

static PyObject *constructor(PyObject *module, PyObject *args) {
    int ints;
    PyObject *names, *defaults, *wrapped;
    if (!PyArg_ParseTuple(args, "pO!O!O:constructor", &ints, &PyTuple_Type, &names,
                          &PyTuple_Type, &defaults, &wrapped)) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    if (count < 1 || count > MAX_FIELDS || PyTuple_GET_SIZE(defaults) != count) {
        PyErr_Format(PyExc_ValueError, "constructor: 1 to %d names, a default for each",
                     MAX_FIELDS);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "constructor: field names are str");
            return NULL;
        }
    }
    Constructor *self = PyObject_GC_New(Constructor, &ConstructorType);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = construct;
    self->ints = ints;
    self->count = count;
    self->names = Py_NewRef(names);
    self->wrapped = Py_NewRef(wrapped);
    for (Py_ssize_t i = 0; i < MAX_FIELDS; i++) {
        self->defaults[i] = i < count ? Py_NewRef(PyTuple_GET_ITEM(defaults, i)) : NULL;
    }
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

static PyMethodDef methods[] = {
    {"constructor", constructor, METH_VARARGS,
     "constructor(ints, names, defaults, wrapped): a compiled __new__ standing in for the "
     "Python one (wrapped), for a value type whose fields are all floats (ints false) or all "
     "ints (ints true)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._values._cvalues",
    "Compiled constructors of the math value types.", -1, methods,
};

PyMODINIT_FUNC PyInit__cvalues(void) {
    if (PyType_Ready(&ConstructorType) < 0) {
        return NULL;
    }
    if ((s_new == NULL && (s_new = PyUnicode_InternFromString("__new__")) == NULL) ||
        (s_func == NULL && (s_func = PyUnicode_InternFromString("__func__")) == NULL)) {
        return NULL;
    }
    return PyModule_Create(&module);
}
