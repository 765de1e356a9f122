/* A world's history rings (included by _cassemble.c, which defines long_words and
 * entry_unpack before it): each entity's history held in C, by net id, so that the commit
 * writes no tuple and the walk reads an entry's tick, mask and bits before from one block of
 * memory instead of the entry's tuple, its ints and its tuple of bits before (a fifth of the
 * walk's misses of the caches, docs/replication-interest-performance.md).
 *
 * One owner per entity's history: its _net_hist list, or, once the compiled commit moved it
 * here, its ring, and then _net_hist is None. The compiled commit moves a list that it can
 * hold (ticks and masks of the class's words, bits before below 2**63); an entry it cannot
 * hold gives the history back to a list for good (the ring stays, unusable, to say so).
 * Python readers get a list of entries from Table.entries (_history.py), and the pure commit
 * takes the history back (Table.take) before it writes it. */

/* The record bodies made for a ring's entity since its history last changed (what the walk
 * would otherwise keep in the entity's _net_cache dict): each the bits that follow a record's
 * head, as words, under its kind and key, so that a body many clients' sections carry is
 * coded once and copied, with no Python key, dict lookup or bytes object. Emptied with every
 * entry the ring gets; freed with the ring. */
#define BODIES 12       /* bodies a ring keeps at most: the ~9 bases of lagging acks, an enter */
#define BODY_WORDS 4096 /* a ring's words of bodies at most (more are coded each time) */
enum { BODY_ENTER = 1, BODY_DELTA, BODY_WHOLE };
typedef struct {
    long long key; /* BODY_DELTA: the tick of the oldest entry after the base; BODY_WHOLE: the
                      changed mask (one word); BODY_ENTER: the class bits */
    int nbits;
    uint16_t off; /* its first word in the block's words */
    uint8_t kind;
} Body;
/* One block: the header, nbody Bodys, then cap words (grown together, as needed: a ring whose
 * entity only ever enters keeps one small body). */
typedef struct {
    int n, nbody, used, cap; /* bodies kept and room for them; words used and held */
    Body body[];
} Bodies;
static inline uint64_t *bodies_words(const Bodies *b) { return (uint64_t *)(b->body + b->nbody); }

/* A ring's header, one cache line, held in its table's array by net id (Table.rings), so that
 * the walk finds it from the id alone, with no pointer to read first; its entries are a block
 * of their own. A slot without a ring is all zeros (ent NULL). */
typedef struct {
    PyObject *ent;       /* strong: the entity (World.despawn has the table forget it), or NULL */
    uint64_t *data;      /* owned: cap entries, from a cache line's start (shift bytes in) */
    Bodies *bodies;      /* owned: its entity's record bodies (bodies_find), or NULL */
    Py_ssize_t n, head;  /* entries, oldest first from head (mod cap) */
    int nw, nprops, cap; /* mask words, flat properties, entries the ring holds */
    int stride;          /* words an entry: its tick, its mask words, a before per property */
    uint8_t usable;      /* 0: an entry it could not mirror (bits past 63 bits, an odd entry) */
    uint8_t shift;       /* bytes from the start of data's block to data */
} Ring;
_Static_assert(sizeof(Ring) == 64, "a ring's header is one cache line");

/* The body of kind and key r keeps (its words, the first bits in the low bits of the first;
 * *nbits), or NULL. */
static inline const uint64_t *bodies_find(const Ring *r, int kind, long long key, int *nbits) {
    const Bodies *b = r->bodies;
    for (int k = 0; b && k < b->n; k++)
        if (b->body[k].key == key && b->body[k].kind == kind) {
            *nbits = b->body[k].nbits;
            return bodies_words(b) + b->body[k].off;
        }
    return NULL;
}

/* r's bodies in a block with room for nbody bodies and cap words (what it kept copied), or
 * NULL with MemoryError (r's block kept). */
static Bodies *bodies_grown(Ring *r, int nbody, int cap) {
    const Bodies *b = r->bodies;
    Bodies *out = PyMem_Malloc(sizeof(Bodies) + sizeof(Body) * (size_t)nbody +
                               sizeof(uint64_t) * (size_t)cap);
    if (!out) {
        PyErr_NoMemory();
        return NULL;
    }
    *out = (Bodies){b ? b->n : 0, nbody, b ? b->used : 0, cap};
    if (b) {
        memcpy(out->body, b->body, sizeof(Body) * (size_t)b->n);
        memcpy(bodies_words(out), bodies_words(b), sizeof(uint64_t) * (size_t)b->used);
    }
    PyMem_Free(r->bodies);
    r->bodies = out;
    return out;
}

/* Room for nbits of r's body of kind and key (its block made or grown as needed), for the
 * caller to fill, into *out: 0; 0 with *out NULL when r keeps BODIES already or the words
 * would pass BODY_WORDS (the body is not kept); -1 on running out of memory. The bodies are
 * the walk's cache, not the ring's history: the walk reads the history through a const
 * pointer and writes the bodies through another (Walk.bring). */
static int bodies_room(Ring *r, int kind, long long key, long long nbits, uint64_t **out) {
    Bodies *b = r->bodies;
    *out = NULL;
    if ((b && b->n == BODIES) || nbits > 64LL * BODY_WORDS)
        return 0;
    int need = (int)((nbits + 63) >> 6);
    int used = b ? b->used : 0, cap = b ? b->cap : 0, nbody = b ? b->nbody : 0;
    if (used + need > cap || (b ? b->n : 0) == nbody) {
        int want = cap ? cap : 4;
        while (want < used + need)
            want *= 2;
        if (want > BODY_WORDS)
            return 0;
        nbody = nbody == (b ? b->n : 0) ? (nbody ? 2 * nbody : 2) : nbody;
        if (!(b = bodies_grown(r, nbody < BODIES ? nbody : BODIES, want)))
            return -1;
    }
    *out = bodies_words(b) + b->used;
    b->body[b->n++] = (Body){key, (int)nbits, (uint16_t)b->used, (uint8_t)kind};
    b->used += need;
    return 0;
}

/* The ring's history changes: the bodies made from it are stale (their block is kept). */
static inline void bodies_clear(Ring *r) {
    if (r->bodies)
        r->bodies->n = r->bodies->used = 0;
}

/* A block for cap entries of stride words, from a cache line's start (an entry of 8 words, a
 * class of 6 properties, on one line): the entries, *shift bytes into the block; NULL with
 * MemoryError. */
static uint64_t *ring_data(int cap, int stride, uint8_t *shift) {
    char *block = PyMem_Malloc(63 + sizeof(uint64_t) * (size_t)cap * (size_t)stride);
    if (!block) {
        PyErr_NoMemory();
        return NULL;
    }
    char *data = (char *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    *shift = (uint8_t)(data - block);
    return (uint64_t *)data;
}

static void ring_data_free(const Ring *r) {
    if (r->data)
        PyMem_Free((char *)r->data - r->shift);
}

/* The ids a table has slots for: a world's ids are dense (the lowest free one is reused), so
 * an id past 1M is a world of a million entities; its history stays a list, and the headers
 * of a table are at most 64 MB. */
#define TABLE_IDS ((long long)1 << 20)

typedef struct {
    PyObject_HEAD
    Ring *rings; /* n headers by net id, from a cache line's start (block: their allocation) */
    void *block;
    Py_ssize_t n;
    int walking; /* calls reading or writing its rings now (a Python callback in one, or
                    in a conversion it makes, cannot move or free them) */
} Table;

/* Whether t's rings are being read or written (RuntimeError then): what would free or move
 * them waits. */
static int table_busy(const Table *t) {
    if (!t->walking)
        return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "a world's history changed while its packets were made or its commit ran");
    return 1;
}

/* What a ring owns let go (its header, a copy, already taken out of its slot: freeing the
 * entity may run code that reads the table). */
static void ring_release(Ring r) {
    ring_data_free(&r);
    PyMem_Free(r.bodies);
    Py_XDECREF(r.ent);
}

/* The ring in slot *slot taken out (the slot left empty) and released. */
static void ring_clear(Ring *slot) {
    Ring r = *slot;
    memset(slot, 0, sizeof(Ring));
    ring_release(r);
}

static inline Py_ssize_t ring_at(const Ring *r, Py_ssize_t i) {
    Py_ssize_t k = r->head + i;
    return k >= r->cap ? k - r->cap : k;
}

static inline const uint64_t *ring_entry(const Ring *r, Py_ssize_t i) {
    return r->data + (size_t)ring_at(r, i) * (size_t)r->stride;
}
static inline long long ring_tick(const Ring *r, Py_ssize_t i) {
    return (long long)ring_entry(r, i)[0];
}
static inline const uint64_t *ring_mask(const Ring *r, Py_ssize_t i) { return ring_entry(r, i) + 1; }
static inline uint64_t ring_before(const Ring *r, Py_ssize_t i, Py_ssize_t prop) {
    return ring_entry(r, i)[1 + r->nw + prop];
}

/* r's entries moved to a new block with room for cap of them, oldest first: 0; -1 with
 * MemoryError (r as it was). */
static int ring_resized(Ring *r, int cap) {
    uint8_t shift;
    uint64_t *data = ring_data(cap, r->stride, &shift);
    if (!data)
        return -1;
    for (Py_ssize_t i = 0; i < r->n; i++)
        memcpy(data + i * r->stride, ring_entry(r, i), sizeof(uint64_t) * (size_t)r->stride);
    ring_data_free(r);
    r->data = data;
    r->shift = shift;
    r->cap = cap;
    r->head = 0;
    return 0;
}

/* Append history entry e (tick, mask, bits before, ...) to r (made larger when full); an
 * entry it cannot hold (a mask or bits past their words, not a tuple of ints) leaves it
 * unusable, not an error. */
static int ring_push(Ring *r, PyObject *e) {
    bodies_clear(r);
    if (!r->usable)
        return 0;
    if (r->n == r->cap && ring_resized(r, r->cap ? 2 * r->cap : 8))
        return -1;
    uint64_t *entry = r->data + (size_t)ring_at(r, r->n) * (size_t)r->stride;
    uint64_t *mask = entry + 1, *before = entry + 1 + r->nw;
    PyObject *flat = PyTuple_Check(e) && PyTuple_GET_SIZE(e) >= 3 ? PyTuple_GET_ITEM(e, 2) : NULL;
    long long tick = 0;
    int over = 0;
    if (flat && PyLong_CheckExact(PyTuple_GET_ITEM(e, 0)))
        tick = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(e, 0), &over);
    if (!flat || !PyTuple_Check(flat) || over || (tick == -1 && PyErr_Occurred()) ||
        long_words(PyTuple_GET_ITEM(e, 1), mask, r->nw)) {
        PyErr_Clear();
        r->usable = 0;
        return 0;
    }
    Py_ssize_t rank = 0;
    for (int q = 0; q < r->nw; q++) {
        for (uint64_t m = mask[q]; m; m &= m - 1, rank++) {
            Py_ssize_t i = 64 * q + ctz64(m);
            PyObject *b = rank < PyTuple_GET_SIZE(flat) ? PyTuple_GET_ITEM(flat, rank) : NULL;
            long long v = -1;
            if (i < r->nprops && b && PyLong_CheckExact(b))
                v = PyLong_AsLongLongAndOverflow(b, &over);
            if (v < 0 || over) { /* past 63 bits (or none): read from the list */
                PyErr_Clear();
                r->usable = 0;
                return 0;
            }
            before[i] = (uint64_t)v;
        }
    }
    if (rank != PyTuple_GET_SIZE(flat)) {
        r->usable = 0;
        return 0;
    }
    entry[0] = (uint64_t)tick;
    r->n++;
    return 0;
}

/* Drop the entries at or before oldest from the front, as the commit drops them from the list. */
static void ring_drop(Ring *r, long long oldest) {
    while (r->n && ring_tick(r, 0) <= oldest) {
        r->head = ring_at(r, 1);
        r->n--;
    }
}

/* A new ring for ent into *out, holding its history list hist, of nprops flat properties
 * (unusable when an entry is one it cannot hold): 1; 0 for a class past 4,096 properties;
 * -1 on an error. */
static int ring_new(Ring *out, PyObject *ent, PyObject *hist, Py_ssize_t nprops) {
    if (nprops > 4096)
        return 0;
    int nw = nprops ? (int)((nprops + 63) / 64) : 1;
    Ring r = {.nw = nw, .nprops = (int)nprops, .stride = 1 + nw + (int)nprops, .usable = 1};
    r.cap = PyList_GET_SIZE(hist) > 8 ? (int)PyList_GET_SIZE(hist) : 8;
    if (!(r.data = ring_data(r.cap, r.stride, &r.shift)))
        return -1;
    r.ent = Py_NewRef(ent);
    for (Py_ssize_t h = 0; h < PyList_GET_SIZE(hist) && r.usable; h++)
        if (ring_push(&r, PyList_GET_ITEM(hist, h))) {
            ring_release(r);
            return -1;
        }
    *out = r;
    return 1;
}

/* The commit's new entry (tick, the changed mask, the bits before by property) appended to
 * r, after dropping the entries at or before oldest: 1; or 0 when the ring
 * cannot hold it, the ring as it was and no error set (a mask past the class's words, bits
 * before past 63 bits or not ints, or bits before that do not match the mask: the list's path
 * then says why, as the pure commit does); -1 on running out of memory. A full ring grows to
 * twice its size, or to span entries (the ticks from oldest to tick) if that is enough: the
 * most a history keeps. */
static int ring_commit(Ring *r, long long tick, PyObject *mask, PyObject *before,
                       long long oldest) {
    uint64_t words[64], local[64], *vals = local;
    bodies_clear(r); /* whatever follows, the entity changed (or its history is a list's) */
    if (r->nw > 64 || !PyDict_CheckExact(before))
        return 0;
    if (long_words(mask, words, r->nw)) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t count = 0, k = 0;
    for (int q = 0; q < r->nw; q++)
        count += popcount64(words[q]);
    if (count != PyDict_GET_SIZE(before))
        return 0;
    if (count > 64 && !(vals = PyMem_Malloc(sizeof(uint64_t) * (size_t)count))) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = 1;
    for (int q = 0; q < r->nw && rc; q++)
        for (uint64_t m = words[q]; m && rc; m &= m - 1) {
            Py_ssize_t i = 64 * q + ctz64(m);
            PyObject *key = i < r->nprops ? PyLong_FromSsize_t(i) : NULL;
            PyObject *b = key ? PyDict_GetItemWithError(before, key) : NULL;
            Py_XDECREF(key);
            int over = 0;
            long long v = b && PyLong_CheckExact(b) ? PyLong_AsLongLongAndOverflow(b, &over) : -1;
            if (v < 0 || over) {
                PyErr_Clear();
                rc = 0;
            }
            vals[k++] = (uint64_t)v;
        }
    if (rc) {
        ring_drop(r, oldest);
        int want = r->cap ? 2 * r->cap : 8;
        if (tick > oldest) { /* (unsigned: no overflow, whatever oldest a caller gives) */
            unsigned long long span = (unsigned long long)tick - (unsigned long long)oldest;
            if (span > (unsigned long long)r->n && span < (unsigned long long)want)
                want = (int)span;
        }
        if (r->n == r->cap && ring_resized(r, want))
            rc = -1;
    }
    if (rc > 0) {
        uint64_t *entry = r->data + (size_t)ring_at(r, r->n) * (size_t)r->stride;
        entry[0] = (uint64_t)tick;
        memcpy(entry + 1, words, sizeof(uint64_t) * (size_t)r->nw);
        k = 0;
        for (int q = 0; q < r->nw; q++)
            for (uint64_t m = words[q]; m; m &= m - 1)
                entry[1 + r->nw + 64 * q + ctz64(m)] = vals[k++];
        r->n++;
    }
    if (vals != local)
        PyMem_Free(vals);
    return rc;
}

/* The ring's entries as the history list holds them: [(tick, mask, bits before, None)]. */
static PyObject *ring_entries(const Ring *r) {
    PyObject *out = PyList_New(r->n);
    for (Py_ssize_t i = 0; out && i < r->n; i++) {
        const uint64_t *m = ring_mask(r, i);
        Py_ssize_t count = 0;
        for (int q = 0; q < r->nw; q++)
            count += popcount64(m[q]);
        PyObject *flat = PyTuple_New(count), *mask = words_long(m, r->nw), *item = NULL;
        Py_ssize_t k = 0;
        for (int q = 0; flat && q < r->nw; q++)
            for (uint64_t w = m[q]; w && flat; w &= w - 1) {
                PyObject *v = PyLong_FromUnsignedLongLong(ring_before(r, i, 64 * q + ctz64(w)));
                if (!v)
                    Py_CLEAR(flat);
                else
                    PyTuple_SET_ITEM(flat, k++, v);
            }
        if (flat && mask)
            item = Py_BuildValue("(LOOO)", ring_tick(r, i), mask, flat, Py_None);
        Py_XDECREF(flat);
        Py_XDECREF(mask);
        if (!item)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* t with a slot for net_id (its headers moved to a larger block, which only the commit
 * does, never while they are read): 0; -1 with MemoryError. */
static int table_room(Table *t, Py_ssize_t net_id) {
    if (net_id < t->n)
        return 0;
    Py_ssize_t n = t->n ? t->n : 64;
    while (n <= net_id)
        n *= 2;
    void *block = PyMem_Malloc(63 + sizeof(Ring) * (size_t)n);
    if (!block) {
        PyErr_NoMemory();
        return -1;
    }
    Ring *rings = (Ring *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    if (t->n)
        memcpy(rings, t->rings, sizeof(Ring) * (size_t)t->n);
    memset(rings + t->n, 0, sizeof(Ring) * (size_t)(n - t->n));
    PyMem_Free(t->block);
    t->block = block;
    t->rings = rings;
    t->n = n;
    return 0;
}

/* Where slot id of t is, or NULL for no table or an id outside it: for a prefetch, which
 * needs no read of the table's memory to find a ring. */
static inline const Ring *table_line(const Table *t, long long id) {
    return t && id >= 0 && id < t->n ? &t->rings[id] : NULL;
}

/* The ring in slot id of t, or NULL for no table, no ring or an id outside the table. */
static inline Ring *table_ring(const Table *t, long long id) {
    return t && id >= 0 && id < t->n && t->rings[id].ent ? &t->rings[id] : NULL;
}

/* The ring holding the history of ent, at net_id (its _net_hist None), or NULL with an error.
 * ent NULL: by net id alone (a stand-in of the entity reads its history). */
static Ring *table_owned(const Table *t, long long net_id, PyObject *ent) {
    Ring *r = table_ring(t, net_id);
    if (!r || (ent && r->ent != ent) || !r->usable) {
        PyErr_Format(PyExc_RuntimeError, "entity %lld's history is in no history table", net_id);
        return NULL;
    }
    return r;
}

/* The ring of ent at net_id when it is usable (else NULL, without an error): warm()'s look. */
static Ring *table_peek(const Table *t, long long net_id, PyObject *ent) {
    Ring *r = table_ring(t, net_id);
    return r && r->ent == ent && r->usable ? r : NULL;
}

/* After the commit wrote ent's history list hist: 1 when a ring now holds it (the caller sets
 * _net_hist to None), 0 when it stays a list (a slot that could not hold this entity's
 * history before is not tried again), -1 on an error. */
static int table_adopt(Table *t, PyObject *ent, PyObject *hist, long long net_id,
                       Py_ssize_t nprops) {
    if (net_id < 0 || net_id >= TABLE_IDS || nprops < 0)
        return 0;
    if (table_room(t, (Py_ssize_t)net_id))
        return -1;
    const Ring *slot = &t->rings[net_id];
    if (slot->ent == ent && !slot->usable)
        return 0;
    Ring fresh;
    int made = ring_new(&fresh, ent, hist, nprops);
    if (made <= 0)
        return made;
    Ring old = t->rings[net_id]; /* (read again: the headers only move in a commit, which a
                                    conversion in ring_new cannot start, but cheaply sure) */
    t->rings[net_id] = fresh;
    ring_release(old);
    return fresh.usable;
}

/* The table holds its entities, which hold their world, which holds the table: a cycle the
 * collector must see through. */
static int table_traverse(PyObject *self, visitproc visit, void *arg) {
    Table *t = (Table *)self;
    for (Py_ssize_t i = 0; i < t->n; i++)
        Py_VISIT(t->rings[i].ent);
    return 0;
}

static int table_clear(PyObject *self) {
    Table *t = (Table *)self;
    for (Py_ssize_t i = 0; i < t->n; i++)
        ring_clear(&t->rings[i]);
    return 0;
}

static void table_dealloc(PyObject *self) {
    Table *t = (Table *)self;
    PyObject_GC_UnTrack(self);
    table_clear(self);
    PyMem_Free(t->block);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *table_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if (!PyArg_ParseTuple(args, ":Table"))
        return NULL;
    return type->tp_alloc(type, 0);
}

/* The ring at net_id arg holds, or NULL (with an error when arg is no int). */
static Ring *table_at(const Table *t, PyObject *arg, long long *net_id) {
    *net_id = PyLong_AsLongLong(arg);
    if (*net_id == -1 && PyErr_Occurred())
        return NULL;
    return table_ring(t, *net_id);
}

static PyObject *table_forget(PyObject *self, PyObject *arg) {
    Table *t = (Table *)self;
    long long net_id;
    Ring *r = table_at(t, arg, &net_id);
    if (PyErr_Occurred() || (r && table_busy(t)))
        return NULL;
    if (r)
        ring_clear(r);
    Py_RETURN_NONE;
}

/* entries(net_id) -> the history the ring at net_id holds, as a list of entries, or None. */
static PyObject *table_entries(PyObject *self, PyObject *arg) {
    long long net_id;
    const Ring *r = table_at((Table *)self, arg, &net_id);
    if (PyErr_Occurred())
        return NULL;
    if (!r || !r->usable)
        Py_RETURN_NONE;
    return ring_entries(r);
}

/* changed_since(net_id, tick) -> the masks of the entries after tick or'ed, or None. */
static PyObject *table_changed_since(PyObject *self, PyObject *args) {
    PyObject *id_o;
    long long after, net_id;
    if (!PyArg_ParseTuple(args, "OL", &id_o, &after))
        return NULL;
    const Ring *r = table_at((Table *)self, id_o, &net_id);
    if (PyErr_Occurred())
        return NULL;
    if (!r || !r->usable)
        Py_RETURN_NONE;
    uint64_t words[64] = {0};
    int nw = r->nw < 64 ? r->nw : 64;
    for (Py_ssize_t i = r->n - 1; i >= 0 && ring_tick(r, i) > after; i--)
        for (int q = 0; q < nw; q++)
            words[q] |= ring_mask(r, i)[q];
    return words_long(words, nw);
}

/* take(net_id) -> entries(net_id), the ring forgotten: the history is a list's again. */
static PyObject *table_take(PyObject *self, PyObject *arg) {
    PyObject *out = table_entries(self, arg);
    if (out && out != Py_None) {
        PyObject *gone = table_forget(self, arg);
        if (!gone)
            Py_CLEAR(out);
        Py_XDECREF(gone);
    }
    return out;
}

static PyMethodDef table_methods[] = {
    {"forget", table_forget, METH_O, "forget(net_id): the entity at net_id left the world."},
    {"entries", table_entries, METH_O,
     "entries(net_id) -> None or [(tick, mask, bits before, None)]: the history a ring "
     "holds, as a list of entries."},
    {"changed_since", table_changed_since, METH_VARARGS,
     "changed_since(net_id, tick) -> None or the changed masks of the entries after tick, "
     "or'ed."},
    {"take", table_take, METH_O,
     "take(net_id) -> entries(net_id), the ring forgotten: the history goes back to a list."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gdvariant.replication._cassemble.Table",
    .tp_basicsize = sizeof(Table),
    .tp_dealloc = table_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A world's history rings by net id, written by the compiled commit.",
    .tp_traverse = table_traverse,
    .tp_clear = table_clear,
    .tp_new = table_new,
    .tp_methods = table_methods,
};
