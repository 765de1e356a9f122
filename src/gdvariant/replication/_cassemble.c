/* The compiled packet assembler of gdvariant.replication: the shared sections and records, the
 * tick commit that feeds them (World.commit's loop), an interest's aim of a view (the sweep of
 * its cells and the record of what changed), its retest of a view's touched entities and
 * its grid's update from the entities that moved, and a budget's ranking of a
 * client's records.
 *
 * The pure-Python assembler, _pyassemble.py, is the reference: its functions take the
 * same arguments as this module's, and for the same world this file makes the same bytes
 * (tests/replication/test_cassemble.py compares them over many random worlds). It reads the
 * same Python objects the pure one reads -- each entity's _net_bits, _net_widths, _net_cache
 * and layout, and its history, which its commit keeps in the world's table of C rings
 * (_table.h, _history.py) where the pure one keeps _net_hist -- and writes records into the
 * same per-entity record cache, under the
 * same keys (and the bodies of enter records, under a key of its own), for an entity whose
 * history is a list; an entity its ring holds has the bodies of its records (what follows
 * each record's head) kept in the ring instead, made once and copied behind each section's
 * head. What it does not share is the pure one's cache of
 * value-delta fragments in the history entries: in C, coding a value against its baseline
 * costs less than looking a cached fragment up, so each record codes its values afresh (and
 * the history entries are left as they are, which the pure one allows).
 *
 * Per class, _assembler.plans() gives a plan tuple: (layout, count, index bits, public mask,
 * per-property (kind, width, components, int bits, frac bits, delta coder), class id, baseline
 * bits, baseline widths). Kinds it cannot
 * code itself (VarInt deltas) call the coder's own fragment() method.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

/* small_int: an exact int of at most two digits read in place, shared with multiplayer._csync.
 * A walked id converts about six such ints (its id, ticks, widths, a vector's value and
 * baseline: 34 bits, two digits). */
#include "../_cints.h"

/* Property kinds (the same numbers as _assembler.py's K_*). */
enum { K_WHOLE = 0, K_PLAIN, K_ZIGZAG, K_COORD, K_VEC_PLAIN, K_VEC_COORD, K_PYTHON, K_VARINT };
enum { OP_UPDATE = 0, OP_ENTER = 1, OP_DELETE = 2 };
/* The set bits of x, in line: a build for the baseline x86-64 (no POPCNT instruction) makes
 * __builtin_popcountll a call of libgcc's loop, one for each record's change list. */
static inline int popcount64(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#if defined(_MSC_VER)
#include <intrin.h>
static int ctz64(uint64_t x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#else
#define ctz64 __builtin_ctzll
#endif
#define FAR_CELLS 63.0 /* _budget.FAR_CELLS */
#define MAX_WORDS 4 /* a value read as words: the widest delta-coded vector is 4 x 35 bits */

typedef struct {
    int kind, width, comps, int_bits, frac_bits;
    int t1, t2, t3;
    int64_t h1, h2, h3; /* each tier's offset, 2^(t-1): a tier holds -h <= d < h */
    uint64_t mask, half;
    PyObject *coder; /* borrowed from the plan */
} PropPlan;

typedef struct {
    PyObject *layout; /* borrowed */
    Py_ssize_t count;
    int index_bits, nwords;
    long class_id;
    PyObject *base_bits, *base_widths; /* borrowed tuples: the class baseline */
    uint64_t *public_mask;
    PropPlan *props;
} ClassPlan;

typedef struct {
    uint8_t *buf;
    Py_ssize_t len, cap;
    uint64_t acc;
    int nacc;
} Writer;

static PyObject *s_spawn, *s_hist, *s_layout, *s_cache, *s_bits, *s_widths, *s_fragment;
static PyObject *s_class_id, *s_count, *s_index_bits, *k_sixty_four, *k_two64;
static PyObject *s_net_id, *s_vals;
static PyObject *s_world, *s_dirty, *s_before, *s_enter_key;

/* ---- bit writer: LSB first, little-endian, as _bits.py describes ---------------------- */

static int w_reserve(Writer *w, Py_ssize_t more) {
    if (w->cap - w->len >= more)
        return 0;
    Py_ssize_t cap = w->cap ? w->cap : 256;
    while (cap - w->len < more)
        cap *= 2;
    uint8_t *buf = PyMem_Realloc(w->buf, (size_t)cap);
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    w->buf = buf;
    w->cap = cap;
    return 0;
}

static inline void put64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8); /* one store */
#else
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Append the low n bits of v (0 <= n <= 64). */
static inline int w_bits(Writer *w, uint64_t v, int n) {
    if (n <= 0)
        return 0;
    if (n < 64)
        v &= ((uint64_t)1 << n) - 1;
    if (w->cap - w->len < 8 && w_reserve(w, 8))
        return -1;
    w->acc |= v << w->nacc;
    int total = w->nacc + n;
    if (total >= 64) {
        put64(w->buf + w->len, w->acc);
        w->len += 8;
        w->acc = w->nacc ? v >> (64 - w->nacc) : 0;
        w->nacc = total - 64;
    } else {
        w->nacc = total;
    }
    return 0;
}

/* Append the n-bit field held by the int v (any width). */
static int w_long(Writer *w, PyObject *v, Py_ssize_t n) {
    if (n <= 64) {
        long long small;
        uint64_t x = small_int(v, &small) ? (uint64_t)small : PyLong_AsUnsignedLongLongMask(v);
        if (x == (uint64_t)-1 && PyErr_Occurred())
            return -1;
        return w_bits(w, x, (int)n);
    }
    Py_INCREF(v);
    while (n > 0) {
        int k = n > 64 ? 64 : (int)n;
        uint64_t x = PyLong_AsUnsignedLongLongMask(v);
        if ((x == (uint64_t)-1 && PyErr_Occurred()) || w_bits(w, x, k)) {
            Py_DECREF(v);
            return -1;
        }
        n -= k;
        if (n > 0) {
            PyObject *next = PyNumber_Rshift(v, k_sixty_four);
            Py_DECREF(v);
            if (!next)
                return -1;
            v = next;
        }
    }
    Py_DECREF(v);
    return 0;
}

/* Pad to a byte; return the bytes written since the last reset and start again. */
static PyObject *w_record(Writer *w) {
    int tail = (w->nacc + 7) >> 3;
    if (w_reserve(w, 8))
        return NULL;
    put64(w->buf + w->len, w->acc);
    PyObject *out = PyBytes_FromStringAndSize((const char *)w->buf, w->len + tail);
    w->len = 0;
    w->acc = 0;
    w->nacc = 0;
    return out;
}

/* ---- ints as 64-bit words ---------------------------------------------------------------- */

/* The low nwords words of the non-negative int v; an int past them is an error. */
static int long_words_any(PyObject *v, uint64_t *out, int nwords) {
    int exact_int = nwords > 1 && PyLong_CheckExact(v);
    if (exact_int) {
        /* below 2^63, the common case: one conversion (not the mask's first), and without the
         * byte array CPython's unsigned conversion builds for an int of two digits or more (a
         * vector of two coordinates, 28 bits and over) */
        int over;
        long long fits = PyLong_AsLongLongAndOverflow(v, &over);
        if (!over && fits >= 0) {
            out[0] = (uint64_t)fits;
            for (int k = 1; k < nwords; k++)
                out[k] = 0;
            return 0;
        }
        if (fits == -1 && PyErr_Occurred())
            return -1;
    }
    out[0] = PyLong_AsUnsignedLongLongMask(v);
    if (out[0] == (uint64_t)-1 && PyErr_Occurred())
        return -1;
    if (nwords == 1)
        return 0; /* a class of at most 64 properties: its masks fit */
    for (int k = 1; k < nwords; k++)
        out[k] = 0;
    if (exact_int) { /* fits 64 bits unsigned: those are its words (no 2^64 compare) */
        unsigned long long exact = PyLong_AsUnsignedLongLong(v);
        if (!(exact == (unsigned long long)-1 && PyErr_Occurred()))
            return 0;
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear(); /* negative or wider: as any int, below */
    }
    int small = PyObject_RichCompareBool(v, k_two64, Py_LT);
    if (small)
        return small < 0 ? -1 : 0;
    Py_INCREF(v);
    for (int k = 1; k < nwords; k++) {
        PyObject *next = PyNumber_Rshift(v, k_sixty_four);
        Py_DECREF(v);
        if (!next)
            return -1;
        v = next;
        out[k] = PyLong_AsUnsignedLongLongMask(v);
        if (out[k] == (uint64_t)-1 && PyErr_Occurred()) {
            Py_DECREF(v);
            return -1;
        }
    }
    PyObject *rest = PyNumber_Rshift(v, k_sixty_four);
    Py_DECREF(v);
    if (!rest)
        return -1;
    int past = PyObject_IsTrue(rest);
    Py_DECREF(rest);
    if (past) {
        if (past > 0)
            PyErr_SetString(PyExc_ValueError, "a mask or value is wider than its class allows");
        return -1;
    }
    return 0;
}

/* long_words_any, a small int read in line (the callers' word counts are mostly constants). */
static inline int long_words(PyObject *v, uint64_t *out, int nwords) {
    long long sv;
    if (small_int(v, &sv) && (sv >= 0 || nwords == 1)) {
        out[0] = (uint64_t)sv;
        for (int k = 1; k < nwords; k++)
            out[k] = 0;
        return 0;
    }
    return long_words_any(v, out, nwords);
}

static PyObject *words_long(const uint64_t *words, int nwords) {
    PyObject *out = PyLong_FromUnsignedLongLong(words[nwords - 1]);
    for (int k = nwords - 2; k >= 0 && out; k--) {
        PyObject *shifted = PyNumber_Lshift(out, k_sixty_four);
        Py_DECREF(out);
        if (!shifted)
            return NULL;
        PyObject *low = PyLong_FromUnsignedLongLong(words[k]);
        if (!low) {
            Py_DECREF(shifted);
            return NULL;
        }
        out = PyNumber_Or(shifted, low);
        Py_DECREF(shifted);
        Py_DECREF(low);
    }
    return out;
}

/* n bits (n <= 64) from bit pos of a word array. */
static inline uint64_t get_bits(const uint64_t *w, int pos, int n) {
    int k = pos >> 6, s = pos & 63;
    uint64_t v = w[k] >> s;
    if (s && s + n > 64)
        v |= w[k + 1] << (64 - s);
    return n < 64 ? v & (((uint64_t)1 << n) - 1) : v;
}

static inline int any_bits(const uint64_t *w, int nwords) {
    for (int k = 0; k < nwords; k++)
        if (w[k])
            return 1;
    return 0;
}

/* ---- records -------------------------------------------------------------------------- */

/* op and entity-id gap: op, then 0, or 1, a 2-bit size class and the gap in 4/8/16/32 bits */
static int w_head(Writer *w, int op, long long gap) {
    static const int widths[4] = {4, 8, 16, 32};
    if (!gap) /* op, then 0: one field, as all of a head (at most 37 bits) is below */
        return w_bits(w, (uint64_t)op, 3);
    for (int size = 0; size < 4; size++) {
        if ((unsigned long long)gap < (1ULL << widths[size]))
            return w_bits(w, (uint64_t)op | (1 | (uint64_t)size << 1) << 2 | (uint64_t)gap << 5,
                          5 + widths[size]);
    }
    PyErr_Format(PyExc_ValueError, "entity id gap %lld is over 32 bits", gap);
    return -1;
}

/* The bits of a record's head for an id gap (w_head's), or -1 when the gap is over 32 bits. */
static int head_bits(long long gap) {
    if (!gap)
        return 3;
    for (int size = 0, width = 4; size < 4; size++, width *= 2)
        if ((unsigned long long)gap < (1ULL << width))
            return 5 + width;
    return -1;
}

static int popcount_words(const uint64_t *m, int nwords) {
    int k = 0;
    for (int i = 0; i < nwords; i++)
        k += popcount64(m[i]);
    return k;
}

/* The selector and change list of mask (gap list when smaller than the bitmask). */
static int w_change_list(Writer *w, const uint64_t *mask, int nwords, Py_ssize_t count,
                         int step) {
    Py_ssize_t k = popcount_words(mask, nwords);
    if (1 + k * step < count) {
        if (w_bits(w, 1, 1))
            return -1;
        long prev = -1;
        for (int q = 0; q < nwords; q++) {
            uint64_t m = mask[q];
            while (m) {
                long i = 64 * q + ctz64(m);
                m &= m - 1;
                if (w_bits(w, 1 | (uint64_t)(i - prev - 1) << 1, step))
                    return -1;
                prev = i;
            }
        }
        return w_bits(w, 0, 1);
    }
    if (w_bits(w, 0, 1))
        return -1;
    Py_ssize_t left = count;
    for (int q = 0; q < nwords && left > 0; q++) {
        int n = left > 64 ? 64 : (int)left;
        if (w_bits(w, mask[q], n))
            return -1;
        left -= n;
    }
    return 0;
}

/* A coded value: up to 256 bits, built before it is written (and reused by every record
 * that codes the same value against the same baseline). */
typedef struct {
    uint64_t w[MAX_WORDS];
    int n;
} Bits;

static inline void b_bits(Bits *b, uint64_t v, int n) {
    if (n <= 0)
        return;
    if (n < 64)
        v &= ((uint64_t)1 << n) - 1;
    int k = b->n >> 6, s = b->n & 63;
    b->w[k] |= v << s;
    if (s && s + n > 64)
        b->w[k + 1] |= v >> (64 - s);
    b->n += n;
}

static int w_code(Writer *w, const Bits *b) {
    for (int k = 0, left = b->n; left > 0; k++, left -= 64)
        if (w_bits(w, b->w[k], left > 64 ? 64 : left))
            return -1;
    return 0;
}

/* A value delta from its difference d: the shortest tier that holds it, offset by half the
 * tier's range (z = d + 2^(t-1)), or the escape and the whole new field. */
static inline void b_tiers(Bits *b, const PropPlan *p, int64_t d, uint64_t whole, int wwidth) {
    if (d >= -p->h1 && d < p->h1) {
        b_bits(b, (uint64_t)(d + p->h1) << 1, 1 + p->t1);
    } else if (d >= -p->h2 && d < p->h2) {
        b_bits(b, 1 | (uint64_t)(d + p->h2) << 2, 2 + p->t2);
    } else if (d >= -p->h3 && d < p->h3) {
        b_bits(b, 3 | (uint64_t)(d + p->h3) << 3, 3 + p->t3);
    } else {
        b_bits(b, 7, 3);
        b_bits(b, whole, wwidth);
    }
}

static inline int64_t mod_diff(const PropPlan *p, uint64_t a, uint64_t b) {
    return (int64_t)(((a - b + p->half) & p->mask)) - (int64_t)p->half;
}

static inline int64_t zigzag_ordinal(const PropPlan *p, uint64_t bits) {
    return (int64_t)((((int64_t)(bits >> 1)) ^ -(int64_t)(bits & 1)) & (int64_t)p->mask);
}

static inline int coord_width(const PropPlan *p, uint64_t bits) {
    int flags = (int)(bits & 3);
    if (!flags)
        return 2;
    return 3 + (flags & 1 ? p->int_bits : 0) + (flags & 2 ? p->frac_bits : 0);
}

static inline int64_t coord_ordinal(const PropPlan *p, uint64_t bits) {
    int flags = (int)(bits & 3);
    if (!flags)
        return 0;
    int n = 3;
    int64_t ip = 0, fp = 0;
    if (flags & 1) {
        ip = (int64_t)((bits >> n) & (((uint64_t)1 << p->int_bits) - 1)) + 1;
        n += p->int_bits;
    }
    if (flags & 2)
        fp = (int64_t)((bits >> n) & (((uint64_t)1 << p->frac_bits) - 1));
    int64_t q = ip << p->frac_bits | fp;
    return bits & 4 ? -q : q;
}

/* A vector of coordinates whose new value x and baseline y each fit one word (a 2D position of
 * 17-bit coordinates: 34 bits), its components taken off the words' low ends: what the
 * general loop of b_delta codes, without its reads across words. */
static inline void b_coords1(Bits *out, const PropPlan *p, uint64_t x, uint64_t y) {
    for (int c = 0; c < p->comps; c++) {
        int nwid = coord_width(p, x), bwid = coord_width(p, y);
        uint64_t a = x & (((uint64_t)1 << nwid) - 1), b = y & (((uint64_t)1 << bwid) - 1);
        b_tiers(out, p, coord_ordinal(p, a) - coord_ordinal(p, b), a, nwid);
        x >>= nwid;
        y >>= bwid;
    }
}

/* The value of VarInt bits (zigzag LEB128, at most 10 groups); -1 when they are not one. */
static int varint_value(const uint64_t *words, int64_t *out) {
    uint64_t v = 0;
    for (int k = 0; k < 10; k++) {
        uint64_t group = get_bits(words, 8 * k, 8);
        v |= (group & 0x7F) << (7 * k);
        if (!(group & 0x80)) {
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            return 0;
        }
    }
    return -1;
}

/* A VarInt's delta: 0 and the difference as a VarInt, or 1 and the whole value (when the
 * difference is past 64 bits). */
static int b_varint(Bits *out, const uint64_t *nw, int width, const uint64_t *bw) {
    int64_t a, b;
    if (varint_value(nw, &a) || varint_value(bw, &b) || width > 80) {
        PyErr_SetString(PyExc_ValueError, "VarInt bits that are not a VarInt");
        return -1;
    }
    if ((b > 0 && a < INT64_MIN + b) || (b < 0 && a > INT64_MAX + b)) {
        b_bits(out, 1, 1);
        for (int k = 0, left = width; left > 0; k++, left -= 64)
            b_bits(out, nw[k], left > 64 ? 64 : left);
        return 0;
    }
    int64_t d = a - b;
    uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
    b_bits(out, 0, 1);
    for (;;) {
        uint64_t group = z & 0x7F;
        z >>= 7;
        if (!z) {
            b_bits(out, group, 8);
            return 0;
        }
        b_bits(out, group | 0x80, 8);
    }
}

/* One changed value (kinds K_PLAIN ... K_VEC_COORD, K_VARINT) coded against its baseline's
 * bits. */
static int b_delta(Bits *out, const PropPlan *p, PyObject *bits, Py_ssize_t width,
                   PyObject *base, const uint64_t *base_word) {
    uint64_t nw[MAX_WORDS], bw[MAX_WORDS] = {0};
    memset(out, 0, sizeof *out);
    switch (p->kind) {
    case K_PLAIN:
    case K_ZIGZAG:
    case K_COORD: {
        long long sa, sb;
        uint64_t a = small_int(bits, &sa) ? (uint64_t)sa : PyLong_AsUnsignedLongLongMask(bits);
        uint64_t b = base_word          ? *base_word
                     : small_int(base, &sb) ? (uint64_t)sb
                                            : PyLong_AsUnsignedLongLongMask(base);
        if (PyErr_Occurred())
            return -1;
        int64_t d;
        if (p->kind == K_PLAIN)
            d = mod_diff(p, a, b);
        else if (p->kind == K_ZIGZAG)
            d = mod_diff(p, (uint64_t)zigzag_ordinal(p, a), (uint64_t)zigzag_ordinal(p, b));
        else
            d = coord_ordinal(p, a) - coord_ordinal(p, b);
        b_tiers(out, p, d, a, (int)width);
        return 0;
    }
    case K_VEC_PLAIN:
    case K_VEC_COORD: {
        if (long_words(bits, nw, MAX_WORDS) || (base_word ? (bw[0] = *base_word, 0)
                                                          : long_words(base, bw, MAX_WORDS)))
            return -1;
        if (p->kind == K_VEC_COORD && 3 + p->int_bits + p->frac_bits < 64 &&
            !(nw[1] | nw[2] | nw[3] | bw[1] | bw[2] | bw[3])) {
            b_coords1(out, p, nw[0], bw[0]);
            return 0;
        }
        int np = 0, bp = 0;
        for (int c = 0; c < p->comps; c++) {
            int nwid, bwid;
            if (p->kind == K_VEC_PLAIN) {
                nwid = bwid = p->width;
            } else {
                nwid = coord_width(p, get_bits(nw, np, 3));
                bwid = coord_width(p, get_bits(bw, bp, 3));
            }
            uint64_t a = get_bits(nw, np, nwid), b = get_bits(bw, bp, bwid);
            int64_t d = p->kind == K_VEC_PLAIN ? mod_diff(p, a, b)
                                               : coord_ordinal(p, a) - coord_ordinal(p, b);
            b_tiers(out, p, d, a, nwid);
            np += nwid;
            bp += bwid;
        }
        return 0;
    }
    case K_VARINT:
        if (long_words(bits, nw, MAX_WORDS) || (base_word ? (bw[0] = *base_word, 0)
                                                          : long_words(base, bw, MAX_WORDS)))
            return -1;
        return b_varint(out, nw, (int)width, bw);
    default:
        PyErr_SetString(PyExc_SystemError, "b_delta: a kind it does not code");
        return -1;
    }
}

/* A value delta made by the coder's own fragment() (kinds the C code does not know). */
static int w_python_delta(Writer *w, const PropPlan *p, PyObject *bits, Py_ssize_t width,
                          PyObject *base) {
    PyObject *pw = PyLong_FromSsize_t(width);
    if (!pw)
        return -1;
    PyObject *got = PyObject_CallMethodObjArgs(p->coder, s_fragment, bits, pw, base, NULL);
    Py_DECREF(pw);
    if (!got)
        return -1;
    int rc = -1;
    if (PyTuple_Check(got) && PyTuple_GET_SIZE(got) == 2) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(got, 1));
        if (!(n == -1 && PyErr_Occurred()))
            rc = w_long(w, PyTuple_GET_ITEM(got, 0), n);
    } else {
        PyErr_SetString(PyExc_TypeError, "fragment() must return (code, width)");
    }
    Py_DECREF(got);
    return rc;
}

/* ---- plans ---------------------------------------------------------------------------- */

typedef struct {
    Py_ssize_t n;
    ClassPlan *classes;
    int max_words;
    Py_ssize_t max_count;
} Plans;

static void plans_free(Plans *ps) {
    if (ps->classes) {
        for (Py_ssize_t i = 0; i < ps->n; i++) {
            PyMem_Free(ps->classes[i].public_mask);
            PyMem_Free(ps->classes[i].props);
        }
        PyMem_Free(ps->classes);
    }
    ps->classes = NULL;
}

static int tier(int k, int width) { return (k * width + 4) / 5; }

static int plans_parse(PyObject *seq, Plans *ps) {
    memset(ps, 0, sizeof *ps);
    if (!PyTuple_Check(seq)) {
        PyErr_SetString(PyExc_TypeError, "plans must be a tuple");
        return -1;
    }
    ps->n = PyTuple_GET_SIZE(seq);
    ps->classes = PyMem_Calloc((size_t)(ps->n ? ps->n : 1), sizeof(ClassPlan));
    if (!ps->classes) {
        PyErr_NoMemory();
        return -1;
    }
    ps->max_words = 1;
    for (Py_ssize_t c = 0; c < ps->n; c++) {
        ClassPlan *cp = &ps->classes[c];
        PyObject *t = PyTuple_GET_ITEM(seq, c), *props;
        PyObject *public;
        if (!PyArg_ParseTuple(t, "OniOO!lO!O!;bad plan", &cp->layout, &cp->count,
                              &cp->index_bits, &public, &PyTuple_Type, &props, &cp->class_id,
                              &PyTuple_Type, &cp->base_bits, &PyTuple_Type, &cp->base_widths))
            return -1;
        if (PyTuple_GET_SIZE(props) != cp->count || cp->count < 0 ||
            PyTuple_GET_SIZE(cp->base_bits) != cp->count ||
            PyTuple_GET_SIZE(cp->base_widths) != cp->count) {
            PyErr_SetString(PyExc_ValueError, "plan property count mismatch");
            return -1;
        }
        cp->nwords = (int)((cp->count + 63) / 64);
        if (cp->nwords < 1)
            cp->nwords = 1;
        if (cp->nwords > ps->max_words)
            ps->max_words = cp->nwords;
        if (cp->count > ps->max_count)
            ps->max_count = cp->count;
        cp->public_mask = PyMem_Calloc((size_t)cp->nwords, sizeof(uint64_t));
        cp->props = PyMem_Calloc((size_t)(cp->count ? cp->count : 1), sizeof(PropPlan));
        if (!cp->public_mask || !cp->props) {
            PyErr_NoMemory();
            return -1;
        }
        if (long_words(public, cp->public_mask, cp->nwords))
            return -1;
        for (Py_ssize_t i = 0; i < cp->count; i++) {
            PropPlan *p = &cp->props[i];
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(props, i), "iiiiiO;bad property plan",
                                  &p->kind, &p->width, &p->comps, &p->int_bits, &p->frac_bits,
                                  &p->coder))
                return -1;
            if (p->kind < K_WHOLE || p->kind > K_VARINT || p->width < 0 || p->width > 32 ||
                p->comps < 1 || p->comps > 4 || p->int_bits < 0 || p->int_bits > 32 ||
                p->frac_bits < 0 || p->frac_bits > 16) {
                PyErr_SetString(PyExc_ValueError, "bad property plan");
                return -1;
            }
            if (p->width) {
                p->mask = ((uint64_t)1 << p->width) - 1;
                p->half = (uint64_t)1 << (p->width - 1);
                p->t1 = tier(1, p->width);
                p->t2 = tier(2, p->width);
                p->t3 = tier(3, p->width);
                p->h1 = (int64_t)1 << (p->t1 - 1);
                p->h2 = (int64_t)1 << (p->t2 - 1);
                p->h3 = (int64_t)1 << (p->t3 - 1);
            }
        }
    }
    return 0;
}

/* The plans of the last call, kept for the next: an encoder passes the same tuple every time,
 * and the budget's sizing calls assemble for one id at a time. The tuple is held, so the
 * borrowed layouts and coders stay alive; a call made while another runs (depth: a coder's
 * fragment() in Python may call back) with other plans parses its own. */
static PyObject *g_plans_seq;
static Plans g_plans;
static int g_depth;

/* wk->plans for seq: the kept ones (*owned = 0) or parsed for this call (*owned = 1). */
static int plans_get(PyObject *seq, Plans *out, int *owned) {
    *owned = 0;
    if (seq == g_plans_seq) {
        *out = g_plans;
        return 0;
    }
    if (g_depth > 0) {
        *owned = 1;
        return plans_parse(seq, out);
    }
    plans_free(&g_plans);
    Py_CLEAR(g_plans_seq);
    if (plans_parse(seq, &g_plans)) {
        plans_free(&g_plans);
        return -1;
    }
    Py_INCREF(seq);
    g_plans_seq = seq;
    *out = g_plans;
    return 0;
}

static ClassPlan *plan_for(Plans *ps, PyObject *layout, Py_ssize_t *hint) {
    if (*hint < ps->n && ps->classes[*hint].layout == layout)
        return &ps->classes[*hint];
    for (Py_ssize_t i = 0; i < ps->n; i++) {
        if (ps->classes[i].layout == layout) {
            *hint = i;
            return &ps->classes[i];
        }
    }
    PyErr_SetString(PyExc_ValueError, "an entity's layout is not in the plans");
    return NULL;
}

/* ---- encode_record (the Python-callable twin of _packet_format.encode_record) ------------ */

static int w_whole_values(Writer *w, const uint64_t *mask, int nwords, PyObject *bits,
                          PyObject *widths) {
    for (int q = 0; q < nwords; q++) {
        uint64_t m = mask[q];
        while (m) {
            Py_ssize_t i = 64 * q + ctz64(m);
            m &= m - 1;
            if (i >= PyList_GET_SIZE(bits) || i >= PyList_GET_SIZE(widths)) {
                PyErr_SetString(PyExc_IndexError, "changed index past the entity's values");
                return -1;
            }
            Py_ssize_t n = PyLong_AsSsize_t(PyList_GET_ITEM(widths, i));
            if ((n == -1 && PyErr_Occurred()) || w_long(w, PyList_GET_ITEM(bits, i), n))
                return -1;
        }
    }
    return 0;
}

static Writer g_writer; /* the record writer (the GIL serialises callers; no re-entry) */

static PyObject *py_encode_record(PyObject *self, PyObject *args) {
    PyObject *lay, *mask, *bits, *widths;
    int class_bits, op;
    long long gap;
    if (!PyArg_ParseTuple(args, "OiiLOO!O!", &lay, &class_bits, &op, &gap, &mask, &PyList_Type,
                          &bits, &PyList_Type, &widths))
        return NULL;
    Writer *w = &g_writer;
    w->len = 0;
    w->acc = 0;
    w->nacc = 0;
    if (w_head(w, op, gap))
        return NULL;
    if (lay == Py_None)
        return w_record(w);
    PyObject *a = PyObject_GetAttr(lay, s_count), *b = PyObject_GetAttr(lay, s_index_bits);
    PyObject *c = PyObject_GetAttr(lay, s_class_id);
    Py_ssize_t count = a ? PyLong_AsSsize_t(a) : -1;
    long index_bits = b ? PyLong_AsLong(b) : -1, class_id = c ? PyLong_AsLong(c) : -1;
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    if (PyErr_Occurred())
        return NULL;
    int nwords = count > 64 ? (int)((count + 63) / 64) : 1;
    uint64_t small[1], *words = nwords > 1 ? PyMem_Calloc((size_t)nwords, 8) : small;
    if (!words)
        return PyErr_NoMemory();
    PyObject *out = NULL;
    if (long_words(mask, words, nwords))
        goto done;
    if (op == OP_ENTER && w_bits(w, (uint64_t)class_id, class_bits))
        goto done;
    if (w_change_list(w, words, nwords, count, 1 + (int)index_bits) ||
        w_whole_values(w, words, nwords, bits, widths))
        goto done;
    out = w_record(w);
done:
    if (words != small)
        PyMem_Free(words);
    return out;
}

/* ---- the shared-section walk ------------------------------------------------------------ */

typedef struct {
    Py_ssize_t nb;
    long long *base, *prev;
    Py_ssize_t *count;
    Writer *out;
    /* the bits of the section the last record went into, up to that record's padding, or
     * -1: that record was put whole (sec_put), its own bits unknown (fit's sizing) */
    long long bits;
} Sections;

static int sec_put(Sections *s, Py_ssize_t j, PyObject *record, long long net_id) {
    Writer *o = &s->out[j];
    Py_ssize_t n = PyBytes_GET_SIZE(record);
    if (w_reserve(o, n))
        return -1;
    memcpy(o->buf + o->len, PyBytes_AS_STRING(record), (size_t)n);
    o->len += n;
    s->bits = -1;
    s->count[j]++;
    s->prev[j] = net_id;
    return 0;
}

static int entry_unpack(PyObject *hist, Py_ssize_t h, long long *tick, PyObject **mask) {
    PyObject *e = PyList_GET_ITEM(hist, h);
    if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) < 3) {
        PyErr_SetString(PyExc_TypeError, "bad history entry");
        return -1;
    }
    if (!small_int(PyTuple_GET_ITEM(e, 0), tick))
        *tick = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 0));
    *mask = PyTuple_GET_ITEM(e, 1);
    return *tick == -1 && PyErr_Occurred() ? -1 : 0;
}

#include "_table.h"

/* A despawn span's (spawned, gone) ticks: a pair of ints read directly (PyArg_ParseTuple's
 * format parsing was about 330 instructions a span, for every id leaving a client's view),
 * anything else as PyArg_ParseTuple reads it, with its errors. */
static int span_ticks(PyObject *span, long long *spawned, long long *gone) {
    if (PyTuple_CheckExact(span) && PyTuple_GET_SIZE(span) == 2 &&
        PyLong_CheckExact(PyTuple_GET_ITEM(span, 0)) &&
        PyLong_CheckExact(PyTuple_GET_ITEM(span, 1))) {
        *spawned = PyLong_AsLongLong(PyTuple_GET_ITEM(span, 0));
        if (*spawned == -1 && PyErr_Occurred())
            return -1;
        *gone = PyLong_AsLongLong(PyTuple_GET_ITEM(span, 1));
        return *gone == -1 && PyErr_Occurred() ? -1 : 0;
    }
    return PyArg_ParseTuple(span, "LL", spawned, gone) ? 0 : -1;
}

/* Delete records for a despawned id in the bases that still hold it. */
static int deletes(Sections *s, Writer *w, long long net_id, PyObject *spans) {
    if (!PyList_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "deleted spans must be a list");
        return -1;
    }
    for (Py_ssize_t j = 0; j < s->nb; j++) {
        long long base = s->base[j];
        if (!base)
            continue;
        int held = 0;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(spans) && !held; k++) {
            long long spawned, gone;
            if (span_ticks(PyList_GET_ITEM(spans, k), &spawned, &gone))
                return -1;
            held = spawned <= base && base < gone;
        }
        if (!held)
            continue;
        long long gap = net_id - s->prev[j] - 1, at = 8 * (long long)s->out[j].len;
        if (w_head(w, OP_DELETE, gap))
            return -1;
        PyObject *rec = w_record(w);
        if (!rec)
            return -1;
        int rc = sec_put(s, j, rec, net_id);
        Py_DECREF(rec);
        if (rc)
            return -1;
        s->bits = at + head_bits(gap); /* a head alone */
    }
    return 0;
}

/* What warm() found of one id ahead of a section's walk (strong references; ent NULL: nothing,
 * or a lookup warm() left for the walk to meet): the entity, its __dict__ and the six _net_
 * attributes walk_entity reads, each found in that dict. walk_id takes them instead of looking
 * the same names up a second time (the walk's eight lookups an id after warm()'s five were
 * about a fifth of the interest benchmark's packets). Nothing a walk runs writes an entity's
 * attributes (our coders' fragment() included; docs/replication-interest-performance.md, "The
 * walk looks each id up once"), so the two would find the same. */
typedef struct {
    Py_ssize_t pos; /* the id's place in ids */
    PyObject *id, *ent, *dict, *spawn, *hist, *layout, *cache, *bits, *widths;
    /* spawn's value when it is an exact int (spawn_ok), converted once for every client's
     * walk of the call that finds the entity here */
    long long spawn_v;
    int spawn_ok;
} Warmed;

#define WARM 16
#define RING (2 * WARM) /* warm() fills the window after the next: two windows are known */

static void warmed_clear(Warmed *r) {
    if (!r->id) /* empty (keep_warmed fills every field or none): most ring slots of a call */
        return;
    Py_CLEAR(r->id);
    Py_CLEAR(r->ent);
    Py_CLEAR(r->dict);
    Py_CLEAR(r->spawn);
    Py_CLEAR(r->hist);
    Py_CLEAR(r->layout);
    Py_CLEAR(r->cache);
    Py_CLEAR(r->bits);
    Py_CLEAR(r->widths);
}

typedef struct {
    Plans plans;
    Sections sec;
    Writer *w;
    Warmed *ring; /* RING slots, or NULL: walk_id looks everything up itself */
    /* assemble_clients' slots, one per net id below n_table, kept from one client's walk to
     * the next of the same call: an entity found again (the same object) is not looked up
     * again; or NULL (assemble: the ring alone) */
    Warmed *table;
    Py_ssize_t n_table;
    /* what warm() kept of the id at position p of the walk (a ring or a table slot): pick[p %
     * RING], if pick_pos and pick_id there are p and its id (borrowed from ids) */
    Warmed *pick[RING];
    Py_ssize_t pick_pos[RING];
    PyObject *pick_id[RING];
    long long pick_net[RING]; /* its value when warm() read it (a table slot's), else -1 */
    int deltas, class_bits;
    long long oldest, tick;
    PyObject *htab_o;  /* the walked world's history_table, once an entity needed it */
    const Table *htab; /* it, when it is a Table (_table.h), else NULL */
    const Ring *hring; /* the walked entity's history, when a ring holds it (else NULL) */
    Ring *bring; /* hring when it is the walked entity's own: its record bodies (_table.h), the
                    one part of the ring the walk writes */
    PyObject *entering; /* a set of ids that enter though spawned before the bases, or None */
    long long *entering_ids; /* entering's ids ascending, when all are exact ints, or NULL */
    Py_ssize_t n_entering, at_entering; /* at: where the last id walked would be in it */
    PyObject *held; /* one base: a dict of ids held as of an older tick than the base, or None */
    /* scratch, max_words each; src: per property the history entry its baseline is in, rank:
     * where in that entry's bits before (its mask's set bits in order) the baseline is */
    uint64_t *mask, *entry, *changed, *last;
    /* the mask int whose words wk->entry holds (a strong reference: the same object, so the
     * same value), with its word count; or NULL */
    PyObject *entry_of;
    int entry_nw;
    Py_ssize_t *src, *rank;
    /* per property of the entity walked: its value delta against the baseline in src, made
     * when a record first needs it (valid while stamp equals serial) */
    Bits *code;
    uint32_t *stamp, serial;
    int sizing; /* fit's sizing: no record put whole from an entity's cache (sec.bits known) */
} Walk;

static PyObject *cache_key(long long first_or_op, long long gap, PyObject *changed) {
    if (changed) /* whole values: the mask alone, or (op, gap, mask) */
        return gap || first_or_op != OP_UPDATE
                   ? Py_BuildValue("(iLO)", (int)first_or_op, gap, changed)
                   : (Py_INCREF(changed), changed);
    /* value deltas: -first, or (-first, gap) */
    return gap ? Py_BuildValue("(LL)", -first_or_op, gap) : PyLong_FromLongLong(-first_or_op);
}

/* The change list and values of an update record (what follows its head) into wk->w. */
static int w_update_body(Walk *wk, ClassPlan *cp, PyObject *bits, PyObject *widths,
                         PyObject *hist) {
    Writer *w = wk->w;
    int nw = cp->nwords;
    if (w_change_list(w, wk->changed, nw, cp->count, 1 + cp->index_bits))
        return -1;
    if (!hist)
        return w_whole_values(w, wk->changed, nw, bits, widths);
    for (int q = 0; q < nw; q++) {
        uint64_t m = wk->changed[q];
        while (m) {
            Py_ssize_t i = 64 * q + ctz64(m);
            m &= m - 1;
            const PropPlan *p = &cp->props[i];
            PyObject *value = PyList_GET_ITEM(bits, i), *width = PyList_GET_ITEM(widths, i);
            long long small;
            Py_ssize_t n = small_int(width, &small) ? (Py_ssize_t)small : PyLong_AsSsize_t(width);
            if (n == -1 && PyErr_Occurred())
                return -1;
            if (p->kind == K_WHOLE) {
                if (w_long(w, value, n))
                    return -1;
                continue;
            }
            if (p->kind != K_PYTHON && wk->stamp[i] == wk->serial) {
                if (w_code(w, &wk->code[i]))
                    return -1;
                continue;
            }
            if (wk->hring) { /* the baseline from the ring */
                uint64_t b = ring_before(wk->hring, wk->src[i], i);
                if (p->kind == K_PYTHON) {
                    PyObject *base = PyLong_FromUnsignedLongLong(b);
                    int bad = !base || w_python_delta(w, p, value, n, base);
                    Py_XDECREF(base);
                    if (bad)
                        return -1;
                    continue;
                }
                if (b_delta(&wk->code[i], p, value, n, NULL, &b) || w_code(w, &wk->code[i]))
                    return -1;
                wk->stamp[i] = wk->serial;
                continue;
            }
            PyObject *before = PyTuple_GET_ITEM(PyList_GET_ITEM(hist, wk->src[i]), 2);
            if (!PyTuple_Check(before) || wk->rank[i] >= PyTuple_GET_SIZE(before)) {
                PyErr_Format(PyExc_RuntimeError,
                             "history entry lacks the bits before property %zd", i);
                return -1;
            }
            PyObject *base = PyTuple_GET_ITEM(before, wk->rank[i]);
            if (p->kind == K_PYTHON) {
                if (w_python_delta(w, p, value, n, base))
                    return -1;
                continue;
            }
            if (b_delta(&wk->code[i], p, value, n, base, NULL) || w_code(w, &wk->code[i]))
                return -1;
            wk->stamp[i] = wk->serial;
        }
    }
    return 0;
}

/* Look a record up in the entity's cache, or build and store it. */
static PyObject *cached_record(Walk *wk, ClassPlan *cp, PyObject *cache, PyObject *key, int op,
                               long long gap, PyObject *bits, PyObject *widths,
                               PyObject *hist) {
    PyObject *rec = PyDict_GetItemWithError(cache, key);
    if (rec) {
        Py_INCREF(rec);
        return rec;
    }
    if (PyErr_Occurred())
        return NULL;
    if (w_head(wk->w, op, gap) || w_update_body(wk, cp, bits, widths, hist))
        return NULL;
    rec = w_record(wk->w);
    if (rec && PyDict_SetItem(cache, key, rec)) {
        Py_DECREF(rec);
        return NULL;
    }
    return rec;
}

/* Pad to a byte, keeping the bytes in the writer. */
static int w_align(Writer *w) {
    int tail = (w->nacc + 7) >> 3;
    if (w_reserve(w, 8))
        return -1;
    put64(w->buf + w->len, w->acc); /* the bytes past tail are the next record's to overwrite */
    w->len += tail;
    w->acc = 0;
    w->nacc = 0;
    return 0;
}

/* The end of a record written into section j bit by bit: padded to a byte, then counted. */
static int sec_close(Sections *s, Py_ssize_t j, long long net_id) {
    s->bits = 8 * (long long)s->out[j].len + s->out[j].nacc;
    if (w_align(&s->out[j]))
        return -1;
    s->count[j]++;
    s->prev[j] = net_id;
    return 0;
}

static inline uint64_t get64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
#endif
}

/* The bits of w from bit from (counted from its start) to its end into out, 64 a word: what
 * a record's body, just written behind its head, is kept as. */
static int w_bits_since(Writer *w, long long from, uint64_t *out) {
    if (w_reserve(w, 16)) /* the accumulator, then a word of zeros past it: what is read */
        return -1;
    put64(w->buf + w->len, w->acc);
    put64(w->buf + w->len + 8, 0);
    long long to = 8 * (long long)w->len + w->nacc;
    int s = (int)(from & 7);
    for (long long at = from; at < to; at += 64) {
        const uint8_t *p = w->buf + (at >> 3);
        *out++ = s ? get64(p) >> s | (uint64_t)p[8] << (64 - s) : get64(p);
    }
    return 0;
}

static int w_enter_body(Walk *wk, ClassPlan *cp, PyObject *bits, PyObject *widths);

/* A record into section j from the walked entity's ring's bodies (wk->bring): the head of op
 * and gap, then the body of kind and key (an update's change list and values, BODY_DELTA
 * against the entries from the tick key on, BODY_WHOLE of the mask key; or an enter's class
 * id, change list and values), copied from the ring or, when it has none yet, coded behind
 * the head and kept; then padded to a byte. The bytes put_update_body, cached_record and
 * put_enter make, with no Python object made or looked up. */
static int put_ring_body(Walk *wk, ClassPlan *cp, Py_ssize_t j, int op, long long gap, int kind,
                         long long key, PyObject *bits, PyObject *widths, PyObject *hist,
                         long long net_id) {
    Sections *s = &wk->sec;
    Writer *o = &s->out[j];
    int nbits;
    const uint64_t *p = bodies_find(wk->bring, kind, key, &nbits);
    if (w_head(o, op, gap))
        return -1;
    if (p) {
        for (; nbits > 0; nbits -= 64, p++)
            if (w_bits(o, *p, nbits < 64 ? nbits : 64))
                return -1;
    } else {
        Writer *keep = wk->w;
        long long from = 8 * (long long)o->len + o->nacc;
        wk->w = o;
        int bad = kind == BODY_ENTER
                      ? w_enter_body(wk, cp, bits, widths)
                      : w_update_body(wk, cp, bits, widths, kind == BODY_DELTA ? hist : NULL);
        wk->w = keep;
        uint64_t *room;
        if (bad ||
            bodies_room(wk->bring, kind, key, 8 * (long long)o->len + o->nacc - from, &room) ||
            (room && w_bits_since(o, from, room)))
            return -1;
    }
    return sec_close(s, j, net_id);
}

/* A value-delta update record into section j (a client's own, one base): its head, then its
 * body (change list and values), coded straight into the section and not kept: about a fifth
 * of the interest benchmark's bodies would be found again (an entity is seen by about five
 * clients whose acks lag differently), and keeping them, in a ring or a dict, cost more than
 * coding those again (docs/replication-interest-performance.md, "Record bodies in the ring,
 * and the one-base path"). */
static int put_update_body(Walk *wk, ClassPlan *cp, Py_ssize_t j, long long gap, PyObject *bits,
                           PyObject *widths, PyObject *hist, long long net_id) {
    Sections *s = &wk->sec;
    Writer *keep = wk->w;
    wk->w = &s->out[j];
    int bad = w_head(wk->w, OP_UPDATE, gap) || w_update_body(wk, cp, bits, widths, hist);
    wk->w = keep;
    return bad ? -1 : sec_close(s, j, net_id);
}

/* A record into section j: the head of its op and id gap, then a body (enter_body's). */
static int sec_put_body(Sections *s, Py_ssize_t j, int op, long long gap, PyObject *body,
                        long long net_id) {
    Writer *o = &s->out[j];
    const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(body);
    Py_ssize_t nbytes = PyBytes_GET_SIZE(body) - 1;
    if (nbytes < 0 || p[nbytes] > 7 || (nbytes == 0 && p[nbytes])) {
        PyErr_SetString(PyExc_ValueError, "bad cached record body");
        return -1;
    }
    long long nbits = 8 * (long long)nbytes - p[nbytes];
    if (w_head(o, op, gap))
        return -1;
    for (; nbits > 0; nbits -= 64, p += 8) {
        int k = nbits < 64 ? (int)nbits : 64;
        uint64_t v = 0;
        for (int i = 0; i < (k + 7) >> 3; i++)
            v |= (uint64_t)p[i] << (8 * i);
        if (w_bits(o, v, k))
            return -1;
    }
    return sec_close(s, j, net_id);
}

static int mask_or(uint64_t *dst, const uint64_t *src, int nw) {
    for (int q = 0; q < nw; q++)
        dst[q] |= src[q];
    return 0;
}

static int mask_and_public(Walk *wk, ClassPlan *cp) {
    int any = 0;
    for (int q = 0; q < cp->nwords; q++) {
        wk->changed[q] = wk->mask[q] & cp->public_mask[q];
        any |= wk->changed[q] != 0;
    }
    return any;
}

/* a != b as Python answers it (1, 0, or -1 with an error set), two small ints compared in
 * line. */
static inline int ints_differ(PyObject *a, PyObject *b) {
    long long x, y;
    if (a == b)
        return 0;
    if (small_int(a, &x) && small_int(b, &y))
        return x != y;
    return PyObject_RichCompareBool(a, b, Py_NE);
}

/* The mask of an entity's public properties whose bits differ from the class baseline (what
 * an enter record carries) into wk->changed: World.nondefault's loop. */
static int enter_mask(Walk *wk, ClassPlan *cp, PyObject *bits, PyObject *widths) {
    memset(wk->changed, 0, sizeof(uint64_t) * (size_t)cp->nwords);
    for (Py_ssize_t i = 0; i < cp->count; i++) {
        int ne = ints_differ(PyList_GET_ITEM(bits, i), PyTuple_GET_ITEM(cp->base_bits, i));
        if (ne == 0)
            ne = ints_differ(PyList_GET_ITEM(widths, i), PyTuple_GET_ITEM(cp->base_widths, i));
        if (ne < 0)
            return -1;
        if (ne)
            wk->changed[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    for (int q = 0; q < cp->nwords; q++)
        wk->changed[q] &= cp->public_mask[q];
    return 0;
}

/* An enter record's body into wk->w: class id, change list and whole values. */
static int w_enter_body(Walk *wk, ClassPlan *cp, PyObject *bits, PyObject *widths) {
    Writer *w = wk->w;
    return enter_mask(wk, cp, bits, widths) ||
                   w_bits(w, (uint64_t)cp->class_id, wk->class_bits) ||
                   w_change_list(w, wk->changed, cp->nwords, cp->count, 1 + cp->index_bits) ||
                   w_whole_values(w, wk->changed, cp->nwords, bits, widths)
               ? -1
               : 0;
}

/* An enter record's body (class id, change list and whole values; no head), the same for every
 * id gap and base while the entity does not change: kept in its cache under "enter" as bytes
 * (the bits padded to a byte, then one byte, the count of padding bits), so each client's
 * enter is the head of its gap and a copy. */
static PyObject *enter_body(Walk *wk, ClassPlan *cp, PyObject *cache, PyObject *bits,
                            PyObject *widths) {
    PyObject *body = PyDict_GetItemWithError(cache, s_enter_key);
    if (body || PyErr_Occurred()) {
        Py_XINCREF(body);
        return body;
    }
    Writer *w = wk->w;
    if (w_enter_body(wk, cp, bits, widths))
        return NULL;
    int pad = (8 - (w->nacc & 7)) & 7;
    if (w_bits(w, 0, pad) || w_bits(w, (uint64_t)pad, 8))
        return NULL;
    body = w_record(w);
    if (body && PyDict_SetItem(cache, s_enter_key, body))
        Py_CLEAR(body);
    return body;
}

static int put_enter(Walk *wk, Py_ssize_t j, ClassPlan *cp, PyObject *cache, PyObject *bits,
                     PyObject *widths, long long net_id) {
    if (wk->bring) /* kept by the entity's ring, by the class bits it was coded with */
        return put_ring_body(wk, cp, j, OP_ENTER, net_id - wk->sec.prev[j] - 1, BODY_ENTER,
                             wk->class_bits, bits, widths, NULL, net_id);
    PyObject *body = enter_body(wk, cp, cache, bits, widths);
    if (!body)
        return -1;
    int rc = sec_put_body(&wk->sec, j, OP_ENTER, net_id - wk->sec.prev[j] - 1, body, net_id);
    Py_DECREF(body);
    return rc;
}

/* A history entry's mask m as nw words into wk->entry. Entries' masks are mostly the same few
 * ints (an entity moving every tick: the same property each time, CPython's one small int), so
 * when m is the very object converted last, its words are already there: the conversion was
 * about 40 instructions for each of the five entries a body ors. */
static int entry_words(Walk *wk, PyObject *m, int nw) {
    if (m == wk->entry_of && nw == wk->entry_nw)
        return 0;
    Py_CLEAR(wk->entry_of);
    if (long_words(m, wk->entry, nw))
        return -1;
    Py_INCREF(wk->entry_of = m);
    wk->entry_nw = nw;
    return 0;
}

/* Each property set in wk->entry (history entry h's mask) has its baseline in that entry, as
 * item rank of its bits before: an older baseline, so its value is coded again. */
static void note_sources(Walk *wk, int nw, Py_ssize_t h) {
    Py_ssize_t r = 0;
    for (int q = 0; q < nw; q++) {
        for (uint64_t e = wk->entry[q]; e; e &= e - 1, r++) {
            Py_ssize_t i = 64 * q + ctz64(e);
            wk->src[i] = h;
            wk->rank[i] = r;
            wk->stamp[i] = 0;
        }
    }
}

/* The history entries after base, from entry *h (tick *t, mask *m) back: their masks or'ed
 * into wk->mask and, with value deltas, each changed property's baseline entry noted in
 * wk->src; *first is the tick of the oldest one walked. 1 if any was walked, 0 if none, -1 on
 * error. From the entity's ring when one holds its history (wk->hring: m unused, and
 * wk->entry_of cleared, the words not being its), else from the list hist. */
static int walk_entries(Walk *wk, int nw, PyObject *hist, long long base, Py_ssize_t *h,
                        long long *t, PyObject **m, long long *first) {
    const Ring *r = wk->hring;
    int grew = 0;
    if (r)
        Py_CLEAR(wk->entry_of);
    while (*t > base) {
        grew = 1;
        if (r)
            memcpy(wk->entry, ring_mask(r, *h), sizeof(uint64_t) * (size_t)nw);
        else if (entry_words(wk, *m, nw))
            return -1;
        mask_or(wk->mask, wk->entry, nw);
        if (wk->deltas)
            note_sources(wk, nw, *h);
        *first = *t;
        (*h)--;
        if (*h < 0) {
            *t = -1;
            break;
        }
        if (r)
            *t = ring_tick(r, *h);
        else if (entry_unpack(hist, *h, t, m))
            return -1;
    }
    return grew;
}

/* first_after over a ring: the index (*at) and tick (*first) of its oldest entry after base;
 * 1, or 0 when none is after it. */
static int ring_first_after(const Ring *r, long long base, Py_ssize_t *at, long long *first) {
    Py_ssize_t lo = 0, hi = r->n;
    long long newest = r->n ? ring_tick(r, r->n - 1) : base;
    if (newest > base && newest - base <= (long long)r->n) {
        /* an entity that changed every tick since base has it here: one look (first_after's) */
        lo = r->n - (Py_ssize_t)(newest - base);
        if (ring_tick(r, lo) > base && (lo == 0 || ring_tick(r, lo - 1) <= base)) {
            *at = lo;
            *first = ring_tick(r, lo);
            return 1;
        }
        lo = 0;
    }
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (ring_tick(r, mid) > base)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == r->n)
        return 0;
    *at = lo;
    *first = ring_tick(r, lo);
    return 1;
}

/* An entity's __dict__ (a new reference), or NULL without an error when it has none (the
 * budget's stand-ins have slots). */
static PyObject *ent_dict(PyObject *ent) {
    PyTypeObject *type = Py_TYPE(ent);
#ifdef Py_TPFLAGS_MANAGED_DICT
    if (!type->tp_dictoffset && !PyType_HasFeature(type, Py_TPFLAGS_MANAGED_DICT))
        return NULL;
#else
    if (!type->tp_dictoffset)
        return NULL;
#endif
    PyObject *dict = PyObject_GenericGetDict(ent, NULL);
    if (!dict || !PyDict_Check(dict)) {
        Py_XDECREF(dict);
        PyErr_Clear();
        return NULL;
    }
    return dict;
}

/* found (borrowed, from the entity's __dict__) as a new reference; NULL with an error set if
 * the lookup failed; else, not in the dict or no dict, getattr. */
static PyObject *found_or_getattr(PyObject *ent, PyObject *found, PyObject *name) {
    if (found)
        return Py_NewRef(found);
    return PyErr_Occurred() ? NULL : PyObject_GetAttr(ent, name);
}

/* One of an entity's _net_ attributes (a new reference): from its __dict__ (a NetClass
 * instance's: one lookup, no walk of its type, which each record would otherwise pay six
 * times), else by getattr. */
static PyObject *ent_attr(PyObject *ent, PyObject *dict, PyObject *name) {
    return found_or_getattr(ent, dict ? PyDict_GetItemWithError(dict, name) : NULL, name);
}

/* The history table of ent's world (_table.h), looked up once per call into *found (a new
 * reference, None when the world has none, for the caller to release): NULL when it has none. */
static Table *world_table(PyObject **found, PyObject *ent, PyObject *dict) {
    if (!*found) {
        PyObject *world = ent_attr(ent, dict, s_world);
        *found = world ? PyObject_GetAttrString(world, "history_table") : NULL;
        Py_XDECREF(world);
        if (!*found) {
            PyErr_Clear();
            *found = Py_NewRef(Py_None);
        } else if (Py_TYPE(*found) == &TableType) {
            ((Table *)*found)->walking++; /* undone by table_done */
        }
    }
    return Py_TYPE(*found) == &TableType ? (Table *)*found : NULL;
}

/* The end of a call that looked its table up with world_table. */
static void table_done(PyObject **found) {
    if (*found && Py_TYPE(*found) == &TableType)
        ((Table *)*found)->walking--;
    Py_CLEAR(*found);
}

/* The ring holding ent's history (its _net_hist None) in table t, or NULL with an error: the
 * slot of the id it is walked as when that holds it, else the slot of its own net_id, as the
 * pure assembler reads it (_history.py), for a stand-in or an entity walked as another id. */
static Ring *history_ring(const Table *t, PyObject *ent, PyObject *dict, long long id) {
    Ring *r = table_peek(t, id, ent);
    if (r)
        return r;
    PyObject *own_o = ent_attr(ent, dict, s_net_id);
    long long own = own_o ? PyLong_AsLongLong(own_o) : -1;
    Py_XDECREF(own_o);
    if (own == -1 && PyErr_Occurred())
        return NULL;
    return table_owned(t, own, NULL);
}

/* The walked world's history table (world_table's, kept by the walk until walk_end). */
static const Table *walk_table(Walk *wk, PyObject *ent, PyObject *dict) {
    if (!wk->htab_o)
        wk->htab = world_table(&wk->htab_o, ent, dict);
    return wk->htab;
}

/* The ring holding the walked entity's history (hist: its _net_hist) into wk->hring, and the
 * number of its entries; -1 with an error when hist is neither a list nor None with a ring. */
static Py_ssize_t walk_history(Walk *wk, PyObject *ent, PyObject *dict, long long net_id,
                               PyObject *hist) {
    wk->hring = wk->bring = NULL;
    if (hist == Py_None) {
        Ring *r = history_ring(walk_table(wk, ent, dict), ent, dict, net_id);
        wk->hring = r;
        /* a stand-in reading the ring of the entity it stands for may hold other values */
        wk->bring = r && r->ent == ent ? r : NULL;
        return r ? r->n : -1;
    }
    if (!PyList_Check(hist)) {
        PyErr_SetString(PyExc_TypeError, "_net_hist must be a list");
        return -1;
    }
    return PyList_GET_SIZE(hist);
}

/* An entity's layout, record cache, bits and widths, checked: new references, or with pre
 * references borrowed from warm()'s slot, which holds them until the walk's next warm(). */
static int entity_state(PyObject *ent, PyObject *dict, const Warmed *pre, PyObject **layout,
                        PyObject **cache, PyObject **bits, PyObject **widths) {
    if (pre) { /* found by warm() in the same dict: borrowed from its slot */
        *layout = pre->layout;
        *cache = pre->cache;
        *bits = pre->bits;
        *widths = pre->widths;
    } else {
        *layout = ent_attr(ent, dict, s_layout);
        *cache = *layout ? ent_attr(ent, dict, s_cache) : NULL;
        *bits = *cache ? ent_attr(ent, dict, s_bits) : NULL;
        *widths = *bits ? ent_attr(ent, dict, s_widths) : NULL;
    }
    if (!*widths)
        return -1;
    if (!PyDict_Check(*cache) || !PyList_Check(*bits) || !PyList_Check(*widths)) {
        PyErr_SetString(PyExc_TypeError, "entity cache, bits or widths of the wrong type");
        return -1;
    }
    return 0;
}

/* A section for one base (an interest's or a budget's, per client): the index (*at) and tick
 * (*first) of the oldest history entry after base, found by bisection: 1, or 0 when none is
 * after it (no record), -1 on error. */
static int first_after(PyObject *hist, long long base, long long newest, Py_ssize_t *at,
                       long long *first) {
    /* The first entry after base is in [lo, hi]. Entries have rising ticks, so at most
     * newest - base of them are after the base: it is at lo = nh - (newest - base) or later,
     * and exactly there for an entity that changed every tick since (one look, no search). */
    Py_ssize_t nh = PyList_GET_SIZE(hist), lo = 0, hi = nh, read = -1;
    long long t, t_read = 0;
    PyObject *m;
    if (nh && newest > base && newest - base < (long long)nh) {
        lo = nh - (Py_ssize_t)(newest - base);
        if (entry_unpack(hist, lo, &t, &m))
            return -1;
        if (t > base) {
            hi = lo;
            read = lo; /* found at once: no second read of its tick below */
            t_read = t;
        }
    }
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (entry_unpack(hist, mid, &t, &m))
            return -1;
        if (t > base) {
            hi = mid;
            read = mid;
            t_read = t;
        } else {
            lo = mid + 1;
        }
    }
    if (lo == PyList_GET_SIZE(hist))
        return 0;
    if (read != lo && entry_unpack(hist, lo, &t_read, &m))
        return -1;
    *at = lo;
    *first = t_read;
    return 1;
}

/* A section for one base: the entries after the base are those from index at to the newest
 * (ticks rise), so their masks are or'ed without reading their ticks again; what the walk
 * over every base does for this one. */
static int update_after(Walk *wk, ClassPlan *cp, PyObject *hist, PyObject *bits,
                        PyObject *widths, Py_ssize_t at, long long net_id) {
    int nw = cp->nwords;
    /* Entries newest first: each one's note_sources overwrites what the newer ones noted for
     * its properties. So an entry followed (older) by one with the very same mask object (the
     * same bits) needs neither its noting, which the older one's replaces whole, nor its or,
     * done already: only the oldest of each run of one mask is noted. */
    Py_ssize_t pending = -1;
    const Ring *r = wk->hring;
    if (r) { /* the same walk over the ring's words: a run of equal masks noted once */
        Py_CLEAR(wk->entry_of);
        for (Py_ssize_t h = r->n - 1; h >= at; h--) {
            const uint64_t *m = ring_mask(r, h);
            size_t size = sizeof(uint64_t) * (size_t)nw;
            int same = pending >= 0;
            for (int q = 0; q < nw && same; q++)
                same = m[q] == wk->entry[q];
            if (same) {
                pending = h;
                continue;
            }
            if (pending >= 0)
                note_sources(wk, nw, pending);
            memcpy(wk->entry, m, size);
            mask_or(wk->mask, wk->entry, nw);
            pending = h;
        }
    }
    for (Py_ssize_t h = r ? -1 : PyList_GET_SIZE(hist) - 1; h >= at; h--) {
        PyObject *e = PyList_GET_ITEM(hist, h);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) < 3) {
            PyErr_SetString(PyExc_TypeError, "bad history entry");
            return -1;
        }
        PyObject *m = PyTuple_GET_ITEM(e, 1);
        if (pending >= 0 && m == wk->entry_of && nw == wk->entry_nw) {
            pending = h;
            continue;
        }
        if (pending >= 0)
            note_sources(wk, nw, pending);
        if (entry_words(wk, m, nw))
            return -1;
        mask_or(wk->mask, wk->entry, nw);
        pending = h;
    }
    if (pending >= 0)
        note_sources(wk, nw, pending);
    if (!mask_and_public(wk, cp))
        return 0;
    return put_update_body(wk, cp, 0, net_id - wk->sec.prev[0] - 1, bits, widths, hist, net_id);
}

static int ll_cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* wk->entering's ids as a sorted array (wk->entering_ids), when every one is an exact int
 * that fits: id in entering is then a bisection of plain numbers, not a hash lookup per id
 * walked (about 90 instructions each, for the 180 ids of a client's walk, of which some 27
 * enter). Anything else (an id of another type, a set too big to copy) keeps the set. */
static int entering_sorted(Walk *wk) {
    if (wk->entering == Py_None || !PyAnySet_CheckExact(wk->entering))
        return 0;
    Py_ssize_t n = PySet_GET_SIZE(wk->entering), k = 0;
    PyObject *it = PyObject_GetIter(wk->entering), *key = NULL;
    long long *ids = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(long long));
    if (!it || !ids) {
        Py_XDECREF(it);
        PyMem_Free(ids);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    while (k < n && (key = PyIter_Next(it))) {
        int over;
        ids[k] = PyLong_CheckExact(key) ? PyLong_AsLongLongAndOverflow(key, &over) : (over = 1);
        Py_DECREF(key);
        if (over)
            break;
        k++;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        PyMem_Free(ids);
        return -1;
    }
    if (k != n) { /* not all plain ints: the set itself */
        PyMem_Free(ids);
        return 0;
    }
    qsort(ids, (size_t)n, sizeof *ids, ll_cmp);
    wk->entering_ids = ids;
    wk->n_entering = n;
    return 0;
}

/* id (net_id its value) in wk->entering: 1, 0, or -1 with an error. A walk's ids ascend, so
 * the place of the last one is where to look from; an id below it is bisected for. */
static int entering_has(Walk *wk, PyObject *id, long long net_id) {
    if (!wk->entering_ids || !PyLong_CheckExact(id))
        return PySet_Contains(wk->entering, id);
    const long long *e = wk->entering_ids;
    Py_ssize_t lo = wk->at_entering, hi = wk->n_entering;
    if (lo > 0 && e[lo - 1] >= net_id) /* not ascending: from the start */
        lo = 0;
    for (int k = 0; k < 4 && lo < hi && e[lo] < net_id; k++) /* a few steps, then bisect */
        lo++;
    while (lo < hi && e[lo] < net_id) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (e[mid] < net_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    wk->at_entering = lo;
    return lo < wk->n_entering && e[lo] == net_id;
}

/* The records of one live entity, for every base (newest first). */
/* What walk_entity found of an entity, for walk_bases. */
typedef struct {
    ClassPlan *cp;
    PyObject *hist, *cache, *bits, *widths;
    long long net_id, spawn;
    long long base0; /* with own: the base of every section (the tick it is held as of) */
    int entering, own;
} Walked;

/* An entity's records into each section of a walk of several bases (newest base first), or of
 * whole values: h, t and m are its newest history entry, as walk_entity read it. A record is
 * shared by the next base when nothing changed between the two and no gap differs. */
static int walk_bases(Walk *wk, const Walked *e, Py_ssize_t h, long long t, PyObject *m) {
    Sections *s = &wk->sec;
    ClassPlan *cp = e->cp;
    int nw = cp->nwords;
    PyObject *record = NULL, *key = NULL;
    long long first = 0;
    int reusable = 0, have_last = 0;
    for (Py_ssize_t j = 0; j < s->nb; j++) {
        long long base = e->own ? e->base0 : s->base[j];
        long long gap = e->net_id - s->prev[j] - 1;
        if (e->entering && (e->spawn > base || !base)) {
            if (put_enter(wk, j, cp, e->cache, e->bits, e->widths, e->net_id))
                goto fail;
            reusable = 0;
            have_last = 0;
            continue;
        }
        int grew = walk_entries(wk, nw, e->hist, base, &h, &t, &m, &first);
        if (grew < 0)
            goto fail;
        if (wk->deltas) {
            if (grew) {
                reusable = 0;
            } else if (reusable && !gap) {
                /* no change between this base and the newer one: the same record */
                if (sec_put(s, j, record, e->net_id))
                    goto fail;
                continue;
            }
        } else if (!e->entering && have_last && !gap &&
                   memcmp(wk->mask, wk->last, sizeof(uint64_t) * (size_t)nw) == 0) {
            if (sec_put(s, j, record, e->net_id))
                goto fail;
            continue;
        }
        if (!mask_and_public(wk, cp))
            continue;
        if (wk->deltas && s->nb == 1) { /* a client's own section: a body of its own */
            Py_CLEAR(record);
            reusable = 0;
            if (put_update_body(wk, cp, j, gap, e->bits, e->widths, e->hist, e->net_id))
                goto fail;
            continue;
        }
        if (wk->bring && (wk->deltas || nw == 1)) { /* the ring's body, by base tick or mask */
            Py_CLEAR(record);
            reusable = have_last = 0; /* (the same body is found again in the ring) */
            if (put_ring_body(wk, cp, j, OP_UPDATE, gap, wk->deltas ? BODY_DELTA : BODY_WHOLE,
                              wk->deltas ? first : (long long)wk->changed[0], e->bits, e->widths,
                              e->hist, e->net_id))
                goto fail;
            continue;
        }
        if (wk->sizing) { /* written, not put whole from the cache: its bits are known */
            Py_CLEAR(record);
            reusable = have_last = 0;
            if (put_update_body(wk, cp, j, gap, e->bits, e->widths, wk->deltas ? e->hist : NULL,
                                e->net_id))
                goto fail;
            continue;
        }
        if (wk->deltas) {
            key = cache_key(first, gap, NULL);
        } else {
            PyObject *changed_long = nw == 1 ? PyLong_FromUnsignedLongLong(wk->changed[0])
                                             : words_long(wk->changed, nw);
            key = changed_long ? cache_key(OP_UPDATE, gap, changed_long) : NULL;
            Py_CLEAR(changed_long);
        }
        if (!key)
            goto fail;
        Py_XSETREF(record, cached_record(wk, cp, e->cache, key, OP_UPDATE, gap, e->bits,
                                         e->widths, wk->deltas ? e->hist : NULL));
        Py_CLEAR(key);
        if (!record || sec_put(s, j, record, e->net_id))
            goto fail;
        if (wk->deltas) {
            reusable = !gap;
        } else if (!gap) {
            have_last = 1;
            memcpy(wk->last, wk->mask, sizeof(uint64_t) * (size_t)nw);
        } else {
            have_last = 0;
        }
    }
    Py_XDECREF(record);
    return 0;
fail:
    Py_XDECREF(record);
    Py_XDECREF(key);
    return -1;
}

static int walk_entity(Walk *wk, PyObject *ent, PyObject *id, long long net_id,
                       Py_ssize_t *hint, const Warmed *pre) {
    int rc = -1;
    PyObject *spawn_o = NULL, *hist = NULL, *layout = NULL, *cache = NULL, *bits = NULL;
    PyObject *widths = NULL, *dict = NULL;
    Sections *s = &wk->sec;
    /* With pre, what warm() found is borrowed from its slot (held there until the walk's next
     * warm(), which runs between ids only): seven references fewer taken and dropped a walked
     * id (docs/replication-interest-performance.md, "Fewer conversions and references a
     * walked id"). */
    if (pre) {
        dict = pre->dict;
        spawn_o = pre->spawn;
        hist = pre->hist;
    } else {
        dict = ent_dict(ent);
        spawn_o = ent_attr(ent, dict, s_spawn);
        hist = spawn_o ? ent_attr(ent, dict, s_hist) : NULL;
    }
    Py_ssize_t nh = hist ? walk_history(wk, ent, dict, net_id, hist) : -1;
    if (nh < 0)
        goto done;
    long long spawn = pre && pre->spawn_ok ? pre->spawn_v : PyLong_AsLongLong(spawn_o);
    if (spawn == -1 && PyErr_Occurred())
        goto done;
    if (wk->entering != Py_None) { /* entering a client's view: an enter, as a spawn of now */
        int in = entering_has(wk, id, net_id);
        if (in < 0)
            goto done;
        if (in)
            spawn = wk->tick;
    }
    long long oldest = wk->oldest;
    int own = 0; /* held as of an older tick than the one base: that tick is its base */
    if (wk->held != Py_None) {
        PyObject *o = PyDict_GetItemWithError(wk->held, id);
        if (!o && PyErr_Occurred())
            goto done;
        if (o) {
            oldest = PyLong_AsLongLong(o);
            if (oldest == -1 && PyErr_Occurred())
                goto done;
            own = 1;
        }
    }
    long long base0 = own || !s->nb ? oldest : s->base[0];
    Py_ssize_t h = nh - 1;
    long long t = -1;
    PyObject *m = NULL;
    if (nh && wk->hring)
        t = ring_tick(wk->hring, h);
    else if (nh && entry_unpack(hist, h, &t, &m))
        goto done;
    if (spawn <= oldest && (!nh || t <= oldest)) {
        rc = 0; /* nothing new for any of the bases */
        goto done;
    }
    if (entity_state(ent, dict, pre, &layout, &cache, &bits, &widths))
        goto done;
    ClassPlan *cp = plan_for(&wk->plans, layout, hint);
    if (!cp)
        goto done;
    if (PyList_GET_SIZE(bits) != cp->count || PyList_GET_SIZE(widths) != cp->count) {
        PyErr_SetString(PyExc_ValueError, "entity values do not match its layout");
        goto done;
    }
    int nw = cp->nwords;
    if (nw == 1) /* most classes: one word, without a call to memset */
        wk->mask[0] = 0;
    else
        memset(wk->mask, 0, sizeof(uint64_t) * (size_t)nw);
    if (++wk->serial == 0) { /* wrapped: no stamp may look valid */
        memset(wk->stamp, 0, sizeof(uint32_t) * (size_t)wk->plans.max_count);
        wk->serial = 1;
    }
    int entering = spawn > oldest;
    if (wk->deltas && s->nb == 1 && !(entering && (spawn > base0 || !base0))) {
        Py_ssize_t at;
        long long first;
        rc = wk->hring ? ring_first_after(wk->hring, base0, &at, &first)
                      : first_after(hist, base0, t, &at, &first);
        if (rc > 0)
            rc = update_after(wk, cp, hist, bits, widths, at, net_id);
        goto done;
    }
    Walked e = {cp, hist, cache, bits, widths, net_id, spawn, base0, entering, own};
    rc = walk_bases(wk, &e, h, t, m);
done:
    if (!pre) {
        Py_XDECREF(spawn_o);
        Py_XDECREF(hist);
        Py_XDECREF(layout);
        Py_XDECREF(cache);
        Py_XDECREF(bits);
        Py_XDECREF(widths);
        Py_XDECREF(dict);
    }
    return rc;
}

/* ---- warming the next entities' memory --------------------------------------------------
 *
 * A walk's time is mostly waiting on memory: each entity's dict, history list, newest history
 * entries and record cache are scattered over the heap, and the work between two reads is
 * long enough that the processor waits for each miss in turn. So every WARM ids the walk
 * calls warm_ahead(), which reads the window of WARM ids after the next one level by level
 * (all their entities, then all their dicts, then the history lists and record caches, then
 * the newest history entries and, for a section of one base, the entries after it, then the
 * first one's tick and bits before, then those bits: the baselines a body codes against), the
 * loads of one level independent of each other so that their misses overlap, each level
 * asking for the next to be fetched. It only reads, and changes nothing the walk sees (an
 * entity's dict is made as the walk would make it): a lookup that fails here is left for the
 * walk to meet and report itself. */
#define WARM_VALUES 8 /* the first values of an entity warmed */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* The _net_ attributes warm() and the commit read, and where in an entity's __dict__ each
 * was last found: the position PyDict_Next was given for it. The entities of a class, spawned
 * alike, hold their names in one order (World.spawn sets them one by one, in the same order), so the
 * next entity's item is most likely at the same position: PyDict_Next from there, and the
 * item taken only if its key is the name itself (the names are interned, as attribute names
 * set by Python are), costs a fifth of a lookup. Only a hint: an item with another key means
 * a walk over the dict to learn the position again, then a lookup if it is not there. */
enum {
    A_HIST, A_CACHE, A_BITS, A_SPAWN, A_LAYOUT, A_WIDTHS, /* warm() */
    A_WORLD, A_DIRTY, /* the commit's and the interest's moves' */
    A_BEFORE,         /* the commit's (and A_HIST) */
    A_NET_ID, A_VALS, /* the interest's moves' */
    A_COUNT
};
static Py_ssize_t g_at[A_COUNT];

/* dict_item when the name is not where the last entity had it: learn its position. */
static PyObject *dict_item_moved(PyObject *dict, int a, PyObject *name) {
    Py_ssize_t pos = 0, before = 0;
    PyObject *key, *value;
    for (; PyDict_Next(dict, &pos, &key, &value); before = pos) {
        if (key == name) {
            g_at[a] = before;
            return value;
        }
    }
    return PyDict_GetItemWithError(dict, name);
}

/* dict[name] (borrowed), or NULL, with an error set if the lookup failed. Inlined: its callers
 * make six a walked id, and the call's own cost was a third of it. */
static inline PyObject *dict_item(PyObject *dict, int a, PyObject *name) {
    Py_ssize_t pos = g_at[a];
    PyObject *key, *value;
    if (PyDict_Next(dict, &pos, &key, &value) && key == name)
        return value;
    return dict_item_moved(dict, a, name);
}

/* The entities of a window of ids warm() reads, and what it found of each: the id's place in
 * ids, its table slot (and net id; NULL and -1 without one), and, for an entity no slot held,
 * its __dict__ (a strong reference, or NULL) with the attributes walk_entity reads in it (the
 * history, record cache and bits; the spawn tick, layout and widths, NULL if one is missing). */
typedef struct {
    int n;
    Py_ssize_t at[2 * WARM];
    PyObject *ent[2 * WARM], *dict[2 * WARM], *hist[2 * WARM], *cache[2 * WARM], *bits[2 * WARM];
    PyObject *spawn[2 * WARM], *layout[2 * WARM], *widths[2 * WARM];
    Warmed *slot[2 * WARM];
    long long net[2 * WARM];
} Window;

/* Keep what warm() found of the window's entity i (id) in slot r, if its dict holds every
 * attribute walk_entity reads (else nothing: the walk looks them up itself and meets what is
 * missing). */
static void keep_warmed(Warmed *r, const Window *w, int i, PyObject *id) {
    PyObject *spawn = w->spawn[i], *layout = w->layout[i], *widths = w->widths[i];
    if (!widths)
        return;
    r->pos = w->at[i];
    PyObject *refs[] = {id, w->ent[i], w->dict[i], spawn, w->hist[i], layout, w->cache[i],
                        w->bits[i], widths};
    for (size_t k = 0; k < sizeof refs / sizeof *refs; k++)
        Py_INCREF(refs[k]);
    r->id = id;
    r->ent = w->ent[i];
    r->dict = w->dict[i];
    r->spawn = spawn;
    r->hist = w->hist[i];
    r->layout = layout;
    r->cache = w->cache[i];
    r->bits = w->bits[i];
    r->widths = widths;
    r->spawn_ok = 0;
    if (PyLong_CheckExact(spawn)) {
        r->spawn_v = PyLong_AsLongLong(spawn);
        if (r->spawn_v == -1 && PyErr_Occurred())
            PyErr_Clear(); /* walk_entity converts it itself and reports the error */
        else
            r->spawn_ok = 1;
    }
}

/* The table slot of id (NULL: no table, or an id not a plain int below its size), *net its
 * value then (else -1). */
static Warmed *table_slot(const Walk *wk, PyObject *id, long long *net) {
    *net = -1;
    if (!wk->table || !PyLong_CheckExact(id))
        return NULL;
    int over = 0;
    long long v;
    if (!small_int(id, &v))
        v = PyLong_AsLongLongAndOverflow(id, &over);
    if (over || v < 0 || v >= wk->n_table)
        return NULL;
    *net = v;
    return &wk->table[v];
}

/* The window's entities, ids from to to (wk: the walk with its ring and table, or NULL), each
 * one's table slot asked for: -1 when a lookup failed (warming stops; the walk meets it). */
static int window_entities(Window *w, PyObject *ids, Py_ssize_t from, Py_ssize_t to,
                           PyObject *entities, Walk *wk) {
    w->n = 0;
    /* the ids first, all asked for: each lookup below hashes its id, a cold int, and their
     * misses then overlap instead of each lookup waiting on its own */
    for (Py_ssize_t j = from; j < to; j++)
        PREFETCH(PyList_GET_ITEM(ids, j));
    for (Py_ssize_t j = from; j < to; j++) {
        PyObject *id = PyList_GET_ITEM(ids, j), *e = PyDict_GetItemWithError(entities, id);
        if (!e) {
            if (PyErr_Occurred()) {
                PyErr_Clear();
                return -1;
            }
            continue;
        }
        PREFETCH(e);
        /* and the words before it, where a managed __dict__ is kept (a prefetch never
         * faults, whatever the object) */
        PREFETCH((const char *)e - 4 * sizeof(void *));
        int i = w->n++;
        w->slot[i] = wk && wk->ring ? table_slot(wk, id, &w->net[i]) : NULL;
        if (!w->slot[i])
            w->net[i] = -1;
        PREFETCH(w->slot[i]); /* its entity, then its objects, are read next */
        if (w->slot[i]) /* (then wk is not NULL: only a walk's ring gives slots) */
            PREFETCH(table_line(wk->htab, w->net[i])); /* its ring's header, for table_peek */
        w->at[i] = j;
        w->ent[i] = e;
    }
    return 0;
}

/* Each entity's attributes: the objects its table slot holds (an earlier client's walk of the
 * call found it), or those its dict holds, looked up; all asked for, and kept (keep_warmed's
 * references) only in a second pass: references taken at once waited on each object's memory
 * in turn (a fifth of warm()'s time in the interest benchmark). After a failed lookup the
 * rest of the window is left for the walk to meet. */
static void window_attributes(Window *w) {
    int bad = 0;
    PyObject *dicts[2 * WARM];
    /* the dicts first, each asked for, then what each keeps its values in: so their misses
     * overlap, where reading a dict's items at once waited on the dict, then on its values */
    for (int i = 0; i < w->n; i++) {
        Warmed *slot = w->slot[i];
        dicts[i] = slot && slot->ent == w->ent[i] ? NULL : ent_dict(w->ent[i]);
        PREFETCH(dicts[i]);
    }
    for (int i = 0; i < w->n; i++)
        if (dicts[i]) {
            PyDictObject *d = (PyDictObject *)dicts[i];
            PREFETCH(d->ma_values ? (void *)d->ma_values : (void *)d->ma_keys);
        }
    for (int i = 0; i < w->n; i++) {
        PyObject *h = NULL, *c = NULL, *b = NULL, *spawn = NULL, *layout = NULL, *widths = NULL;
        Warmed *slot = bad ? NULL : w->slot[i];
        PyObject *dict = dicts[i];
        w->dict[i] = NULL;
        if (slot && slot->ent == w->ent[i]) {
            PREFETCH(slot->hist);
            PREFETCH(slot->cache);
            PREFETCH(slot->bits);
        } else if (bad) {
            Py_XDECREF(dict);
        } else if (dict) {
            h = dict_item(dict, A_HIST, s_hist);
            c = h ? dict_item(dict, A_CACHE, s_cache) : NULL;
            b = c ? dict_item(dict, A_BITS, s_bits) : NULL;
            spawn = b ? dict_item(dict, A_SPAWN, s_spawn) : NULL;
            layout = spawn ? dict_item(dict, A_LAYOUT, s_layout) : NULL;
            widths = layout ? dict_item(dict, A_WIDTHS, s_widths) : NULL;
            if (PyErr_Occurred()) {
                PyErr_Clear();
                Py_DECREF(dict);
                bad = 1;
                h = c = b = spawn = layout = widths = NULL;
            } else {
                w->dict[i] = dict;
                PREFETCH(h);
                PREFETCH(c);
                PREFETCH(b);
                PREFETCH(spawn);
                PREFETCH(layout);
                PREFETCH(widths);
            }
        }
        w->slot[i] = slot;
        if (!slot)
            w->net[i] = -1;
        w->hist[i] = h;
        w->cache[i] = c;
        w->bits[i] = b;
        w->spawn[i] = spawn;
        w->layout[i] = layout;
        w->widths[i] = widths;
    }
}

/* For a section of one base: the first history entry after it (where an entity that changed
 * every tick has it) and the entries the body ors, then its tick and bits before, then those
 * bits: the baselines of the body's values. */
static void warm_after_base(PyObject *const *hist, int m, long long base) {
    PyObject *first[2 * WARM];
    int f = 0;
    for (int i = 0; i < m; i++) {
        Py_ssize_t nh = PyList_GET_SIZE(hist[i]);
        PyObject *e = PyList_GET_ITEM(hist[i], nh - 1);
        if (!PyTuple_Check(e) || !PyTuple_GET_SIZE(e) || !PyLong_CheckExact(PyTuple_GET_ITEM(e, 0)))
            continue;
        long long newest = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 0));
        if (newest == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return;
        }
        if (newest > base && newest - base < (long long)nh) {
            Py_ssize_t at = nh - (Py_ssize_t)(newest - base);
            first[f] = PyList_GET_ITEM(hist[i], at);
            PREFETCH(first[f]);
            f++;
            for (Py_ssize_t j = at + 1; j < nh - 1; j++)
                PREFETCH(PyList_GET_ITEM(hist[i], j));
        }
    }
    PyObject *before[2 * WARM];
    int b = 0;
    for (int i = 0; i < f; i++) {
        if (PyTuple_Check(first[i]) && PyTuple_GET_SIZE(first[i]) > 2) {
            PREFETCH(PyTuple_GET_ITEM(first[i], 0));
            before[b] = PyTuple_GET_ITEM(first[i], 2);
            PREFETCH(before[b]);
            b++;
        }
    }
    for (int i = 0; i < b; i++)
        if (PyTuple_Check(before[i]))
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(before[i]) && k < 4; k++)
                PREFETCH(PyTuple_GET_ITEM(before[i], k));
}

/* Warm the ids from `from`, `windows` windows of them; base: the one base of the section, or
 * -1; wk: the walk whose ring (and table) keep what it finds of each (keep_warmed), or NULL.
 * An entity whose table slot holds it already (an earlier client's walk of the same call
 * found it: nothing runs between them that rebinds its attributes) is taken from there, with
 * none of its dict's six lookups. */
static void warm(PyObject *ids, Py_ssize_t from, PyObject *entities, int windows,
                 long long base, Walk *wk) {
    PyObject *hist[2 * WARM], *cache[2 * WARM], *vals[2 * WARM];
    int k = 0, v = 0, m = 0;
    Window w;
    Warmed *ring = wk ? wk->ring : NULL;
    Py_ssize_t to = PyList_GET_SIZE(ids);
    if (to > from + windows * WARM)
        to = from + windows * WARM;
    if (ring) /* the slots of these ids held the ids a window before the last */
        for (Py_ssize_t j = from; j < to; j++) {
            warmed_clear(&ring[j % RING]);
            wk->pick[j % RING] = NULL;
        }
    if (window_entities(&w, ids, from, to, entities, wk))
        return;
    window_attributes(&w);
    for (int i = 0; i < w.n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, w.at[i]), *h, *c, *b, *ent = w.ent[i];
        Warmed *slot = w.slot[i];
        if (slot && slot->ent == ent) { /* found by an earlier walk of this call */
            h = slot->hist;
            c = slot->cache;
            b = slot->bits;
        } else {
            PyObject *dict = w.dict[i];
            if (!dict)
                continue;
            h = w.hist[i];
            c = w.cache[i];
            b = w.bits[i];
            if (ring && b) { /* all walk_entity reads, for walk_id to take as found */
                if (slot) /* the table's, which may hold another entity */
                    warmed_clear(slot);
                else /* the ring's, cleared above */
                    slot = &ring[w.at[i] % RING];
                keep_warmed(slot, &w, i, id);
            }
            Py_DECREF(dict);
        }
        if (slot && slot->ent == ent) {
            wk->pick[w.at[i] % RING] = slot;
            wk->pick_pos[w.at[i] % RING] = w.at[i];
            wk->pick_id[w.at[i] % RING] = id;
            wk->pick_net[w.at[i] % RING] = w.net[i];
        }
        if (c && PyDict_CheckExact(c)) {
            PREFETCH(c);
            cache[k++] = c;
        }
        const Ring *r = NULL;
        if (h == Py_None && wk) { /* a ring holds its history */
            long long net = w.net[i];
            if (net < 0 && !small_int(id, &net))
                net = -1;
            r = table_peek(walk_table(wk, ent, NULL), net, ent);
        }
        if (r) { /* the ring's newest entries, not the list's */
            long long back = base > 0 && wk->tick - base < 12 ? wk->tick - base : 0;
            for (Py_ssize_t j = r->n - 1; j >= 0 && j >= r->n - 1 - back; j--)
                PREFETCH(ring_entry(r, j));
        } else if (h && PyList_Check(h) && PyList_GET_SIZE(h)) {
            PREFETCH(h);
            hist[m++] = h;
        }
        if (b && PyList_CheckExact(b)) {
            PREFETCH(b);
            vals[v++] = b;
        }
    }
    for (int i = 0; i < m; i++)
        PREFETCH(PyList_GET_ITEM(hist[i], PyList_GET_SIZE(hist[i]) - 1));
    for (int i = 0; i < k; i++)
        PREFETCH(((PyDictObject *)cache[i])->ma_keys);
    for (int i = 0; i < v; i++)
        PREFETCH(((PyListObject *)vals[i])->ob_item);
    for (int i = 0; i < m; i++) {
        PyObject *e = PyList_GET_ITEM(hist[i], PyList_GET_SIZE(hist[i]) - 1);
        if (PyTuple_Check(e) && PyTuple_GET_SIZE(e) > 1) {
            PREFETCH(PyTuple_GET_ITEM(e, 0));
            PREFETCH(PyTuple_GET_ITEM(e, 1));
        }
    }
    /* the entities' values (their bits, as ints): what an update record codes */
    for (int i = 0; i < v; i++)
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(vals[i]) && j < WARM_VALUES; j++)
            PREFETCH(PyList_GET_ITEM(vals[i], j));
    if (base > 0)
        warm_after_base(hist, m, base);
}

/* At id k of a walk: every WARM ids, warm the window after the next (at 0, the first two). */
static inline void warm_ahead(PyObject *ids, Py_ssize_t k, PyObject *entities, long long base,
                              Walk *wk) {
    if (k % WARM == 0)
        warm(ids, k ? k + WARM : 0, entities, k ? 1 : 2, base, wk);
}

/* A walk's scratch for nb bases (each section's previous id -1), with the plans: 0, or -1
 * with an exception set. walk_end frees what it made, whether it failed or not. */
static int walk_begin(Walk *wk, Writer *w, Py_ssize_t nb_bases, PyObject *plans, int *owned,
                      int *entered) {
    memset(wk, 0, sizeof *wk);
    wk->w = w;
    Sections *s = &wk->sec;
    s->nb = nb_bases;
    if (plans_get(plans, &wk->plans, owned))
        return -1;
    g_depth++;
    *entered = 1;
    size_t nb = (size_t)(s->nb ? s->nb : 1), mw = (size_t)wk->plans.max_words;
    s->base = PyMem_Calloc(nb, sizeof(long long));
    s->prev = PyMem_Calloc(nb, sizeof(long long));
    s->count = PyMem_Calloc(nb, sizeof(Py_ssize_t));
    s->out = PyMem_Calloc(nb, sizeof(Writer));
    wk->mask = PyMem_Calloc(4 * mw, sizeof(uint64_t));
    size_t props = (size_t)(wk->plans.max_count ? wk->plans.max_count : 1);
    wk->src = PyMem_Calloc(2 * props, sizeof(Py_ssize_t));
    wk->code = PyMem_Malloc(props * sizeof(Bits));
    wk->stamp = PyMem_Calloc(props, sizeof(uint32_t));
    if (!s->base || !s->prev || !s->count || !s->out || !wk->mask || !wk->src || !wk->code ||
        !wk->stamp) {
        PyErr_NoMemory();
        return -1;
    }
    wk->rank = wk->src + props;
    wk->entry = wk->mask + mw;
    wk->changed = wk->mask + 2 * mw;
    wk->last = wk->mask + 3 * mw;
    for (Py_ssize_t j = 0; j < s->nb; j++)
        s->prev[j] = -1;
    return 0;
}

static void walk_end(Walk *wk, Writer *w, int owned, int entered) {
    Sections *s = &wk->sec;
    if (owned)
        plans_free(&wk->plans);
    g_depth -= entered;
    if (s->out)
        for (Py_ssize_t j = 0; j < s->nb; j++)
            PyMem_Free(s->out[j].buf);
    PyMem_Free(s->out);
    PyMem_Free(s->base);
    PyMem_Free(s->prev);
    PyMem_Free(s->count);
    PyMem_Free(wk->mask);
    PyMem_Free(wk->src);
    PyMem_Free(wk->code);
    PyMem_Free(wk->stamp);
    PyMem_Free(wk->entering_ids);
    Py_CLEAR(wk->entry_of);
    table_done(&wk->htab_o);
    if (wk->ring) {
        for (int k = 0; k < RING; k++)
            warmed_clear(&wk->ring[k]);
        PyMem_Free(wk->ring);
    }
    PyMem_Free(w->buf);
}

/* The records of one id (live or despawned) into every section of the walk. */
static int walk_id(Walk *wk, PyObject *id, PyObject *entities, PyObject *deleted,
                   Py_ssize_t *hint, Py_ssize_t pos) {
    const Warmed *pre = NULL;
    long long net_id = -1; /* the id's value as warm() read it, or -1: read it here */
    if (wk->ring) {
        int k = (int)(pos % RING);
        const Warmed *r = wk->pick[k];
        if (r && r->ent && wk->pick_pos[k] == pos && wk->pick_id[k] == id) {
            pre = r;
            net_id = wk->pick_net[k];
        }
    }
    if (net_id < 0 && !small_int(id, &net_id)) {
        net_id = PyLong_AsLongLong(id);
        if (net_id == -1 && PyErr_Occurred())
            return -1;
    }
    if (pre) /* the entity borrowed from warm()'s slot, as what walk_entity reads of it */
        return walk_entity(wk, pre->ent, id, net_id, hint, pre);
    PyObject *ent = PyDict_GetItemWithError(entities, id);
    if (!ent) {
        if (PyErr_Occurred())
            return -1;
        PyObject *spans = PyDict_GetItemWithError(deleted, id);
        if (!spans) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyError, "an id is neither live nor deleted");
            return -1;
        }
        return deletes(&wk->sec, wk->w, net_id, spans);
    }
    Py_INCREF(ent);
    int rc = walk_entity(wk, ent, id, net_id, hint, NULL);
    Py_DECREF(ent);
    return rc;
}

/* The sections of a walk over ids for the bases in order (assemble's arguments; table: the
 * slots of assemble_clients, or NULL). */
static PyObject *assemble_walk(int deltas, long long tick, PyObject *order, long long oldest,
                               PyObject *ids, PyObject *entities, PyObject *deleted,
                               PyObject *plans, int class_bits, PyObject *entering,
                               PyObject *held, Warmed *table, Py_ssize_t n_table) {
    if (entering != Py_None && !PyAnySet_Check(entering)) {
        PyErr_SetString(PyExc_TypeError, "entering must be a set of ids or None");
        return NULL;
    }
    if (held != Py_None && !PyDict_Check(held)) {
        PyErr_SetString(PyExc_TypeError, "held must be a dict of ids or None");
        return NULL;
    }
    if (held != Py_None && PyDict_GET_SIZE(held) && PyList_GET_SIZE(order) != 1) {
        PyErr_SetString(PyExc_ValueError, "held ticks go with a section of one base");
        return NULL;
    }
    Walk wk;
    Writer w = {0};
    int owned = 0, entered = 0;
    PyObject *result = NULL;
    Sections *s = &wk.sec;
    if (walk_begin(&wk, &w, PyList_GET_SIZE(order), plans, &owned, &entered))
        goto done;
    wk.deltas = deltas;
    wk.class_bits = class_bits;
    wk.oldest = oldest;
    wk.tick = tick;
    wk.entering = entering;
    wk.table = table;
    wk.n_table = n_table;
    if (entering_sorted(&wk))
        goto done;
    wk.held = held != Py_None && PyDict_GET_SIZE(held) ? held : Py_None;
    if (!(wk.ring = PyMem_Calloc(RING, sizeof(Warmed)))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < s->nb; j++) {
        s->base[j] = PyLong_AsLongLong(PyList_GET_ITEM(order, j));
        if (s->base[j] == -1 && PyErr_Occurred())
            goto done;
    }
    Py_ssize_t hint = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(ids); k++) {
        warm_ahead(ids, k, entities, s->nb == 1 ? s->base[0] : -1, &wk);
        if (walk_id(&wk, PyList_GET_ITEM(ids, k), entities, deleted, &hint, k))
            goto done;
    }
    result = PyList_New(s->nb);
    for (Py_ssize_t j = 0; result && j < s->nb; j++) {
        PyObject *item = Py_BuildValue("(ny#)", s->count[j], s->out[j].buf ? (const char *)s->out[j].buf : "",
                                       s->out[j].len);
        if (!item) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, j, item);
    }
done:
    walk_end(&wk, &w, owned, entered);
    return result;
}

static PyObject *py_assemble(PyObject *self, PyObject *args) {
    int deltas, class_bits;
    long long tick, oldest;
    PyObject *order, *ids, *entities, *deleted, *plans, *entering, *held;
    if (!PyArg_ParseTuple(args, "pLO!LO!O!O!OiOO", &deltas, &tick, &PyList_Type, &order,
                          &oldest, &PyList_Type, &ids, &PyDict_Type, &entities, &PyDict_Type,
                          &deleted, &plans, &class_bits, &entering, &held))
        return NULL;
    return assemble_walk(deltas, tick, order, oldest, ids, entities, deleted, plans, class_bits,
                         entering, held, NULL, 0);
}

/* The slots assemble_clients keeps per net id: one past the largest relevant id of the jobs
 * (each view's order is ascending), but no more than a few times the ids walked (a sparse
 * world's ids past that are walked without a slot, as by assemble). */
static Py_ssize_t table_size(PyObject *jobs) {
    long long top = -1, walked = 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(jobs); j++) {
        PyObject *job = PyList_GET_ITEM(jobs, j), *ids;
        if (!PyTuple_Check(job) || PyTuple_GET_SIZE(job) != 6 ||
            !PyList_Check(ids = PyTuple_GET_ITEM(job, 1)) || !PyList_GET_SIZE(ids))
            continue; /* (a bad job is refused where it is walked) */
        walked += PyList_GET_SIZE(ids);
        PyObject *last = PyList_GET_ITEM(ids, PyList_GET_SIZE(ids) - 1);
        int over = 0;
        long long v = PyLong_CheckExact(last) ? PyLong_AsLongLongAndOverflow(last, &over) : -1;
        if (!over && v > top)
            top = v;
    }
    long long cap = 4 * walked + 64;
    if (cap > (1 << 24))
        cap = 1 << 24;
    return (Py_ssize_t)(top + 1 < cap ? top + 1 : cap);
}

/* Stamps of the exact int ids below n that a client's changes named (stamp[id] == gen: named
 * already), for assemble_clients: one array for the call, a new gen for each client. */
typedef struct {
    uint32_t *stamp;
    Py_ssize_t n;
    uint32_t gen;
} Seen;
static PyObject *relevance_of(PyObject *relevant, PyObject *order, PyObject *ticks,
                              PyObject *log, long long base, PyObject *gone, Seen *seen);

/* Every item of dict read once, in its own order: its entries then in the cache. A client's
 * walk and its changes look its relevant dict up in the order of the ids, not the dict's, and
 * each lookup waited on its own miss; read in order, the processor fetches the lines ahead of
 * the reads (docs/replication-interest-performance.md, "The twenty-ninth round"). */
static void dict_read(PyObject *dict) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value))
        ;
}

/* One job of assemble_clients: its client's relevance (a job is relevance's arguments), then
 * the client's own section for its base, as the encoder's packet_for makes it. The relevance's
 * lists, sets and dicts are freed before the next job's are made (all of them held until one
 * call at the end brought young collections of the cyclic collector into packets()). */
static PyObject *client_section(int deltas, long long tick, PyObject *job, PyObject *plans,
                                int class_bits, Warmed *table, Py_ssize_t n_table, Seen *seen) {
    if (!PyTuple_Check(job) || PyTuple_GET_SIZE(job) != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "a job is (relevant, order, ticks, log, base, gone): relevance's arguments");
        return NULL;
    }
    PyObject *relevant, *order_ids, *ticks, *log, *gone, *base_o = PyTuple_GET_ITEM(job, 4);
    long long base;
    if (!PyArg_ParseTuple(job, "O!O!O!O!LO", &PyDict_Type, &relevant, &PyList_Type, &order_ids,
                          &PyList_Type, &ticks, &PyList_Type, &log, &base, &gone))
        return NULL;
    dict_read(relevant);
    PyObject *found = relevance_of(relevant, order_ids, ticks, log, base, gone, seen);
    if (!found)
        return NULL;
    PyObject *sections = NULL, *order = NULL;
    if ((order = PyList_New(1))) {
        PyList_SET_ITEM(order, 0, Py_NewRef(base_o));
        PyObject *entering = PyTuple_GET_ITEM(found, 2);
        sections = assemble_walk(deltas, tick, order, base ? base : -1, PyTuple_GET_ITEM(found, 1),
                                 PyTuple_GET_ITEM(job, 0), PyTuple_GET_ITEM(found, 3), plans,
                                 class_bits, PySet_GET_SIZE(entering) ? entering : Py_None,
                                 Py_None, table, n_table);
        Py_DECREF(order);
    }
    Py_DECREF(found);
    PyObject *out = sections ? Py_NewRef(PyList_GET_ITEM(sections, 0)) : NULL;
    Py_XDECREF(sections);
    return out;
}

/* Each client's own section of a tick in one call: an entity several clients see has its
 * attributes looked up by the first walk only (docs/replication-interest.md). */
static PyObject *py_assemble_clients(PyObject *self, PyObject *args) {
    int deltas, class_bits;
    long long tick;
    PyObject *jobs, *plans;
    if (!PyArg_ParseTuple(args, "pLO!Oi", &deltas, &tick, &PyList_Type, &jobs, &plans,
                          &class_bits))
        return NULL;
    Py_INCREF(jobs);
    Py_ssize_t n_table = table_size(jobs);
    Warmed *table = n_table ? PyMem_Calloc((size_t)n_table, sizeof(Warmed)) : NULL;
    /* the ids each client's changes named, by net id below n_table (the rest in a dict) */
    Seen seen = {n_table ? PyMem_Calloc((size_t)n_table, sizeof(uint32_t)) : NULL, n_table, 0};
    PyObject *out = n_table && (!table || !seen.stamp) ? PyErr_NoMemory()
                                                       : PyList_New(PyList_GET_SIZE(jobs));
    for (Py_ssize_t j = 0; out && j < PyList_GET_SIZE(jobs); j++) {
        seen.gen++;
        PyObject *section = client_section(deltas, tick, PyList_GET_ITEM(jobs, j), plans,
                                           class_bits, table, n_table, &seen);
        if (!section)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, j, section);
    }
    for (Py_ssize_t i = 0; table && i < n_table; i++) /* nothing kept for the next call */
        if (table[i].id)
            warmed_clear(&table[i]);
    PyMem_Free(table);
    PyMem_Free(seen.stamp);
    Py_DECREF(jobs);
    return out;
}

/* Each id's record alone, for one base (a section of that id only): its length in bytes.
 * A budget asks it of the records it ranks, to fill a packet without assembling each. */
/* ---- a budget's fill of one client's packet ------------------------------------------------
 *
 * fit() picks, down a ranking, the records that go into a client's section within room bytes:
 * the rule of _budget.choose (a record goes when the section of those chosen so far, plus the
 * record's bytes alone, is within room; the first that is not ends the fill), which the pure
 * assembler runs by assembling the section again each time its estimate is over. Here each
 * record's body bits are noted once: by a walk of every id the client needs (whose section is
 * the packet's when it fits, the ranking asked for only when it does not), or one record at a
 * time down the ranking. The section's exact bytes are then kept as records go in: a record's
 * bytes are its head's bits for its id gap plus its body's, padded to a byte, and a record put
 * between two others changes the gap of the one after it only. The section is assembled once,
 * at the end (docs/replication-budget.md). */

typedef struct {
    long long *net; /* the chosen ids, ascending */
    long long *body; /* each one's body bits */
    PyObject **id;  /* each one's id object, borrowed from the ranking */
    Py_ssize_t n;
    long long used; /* the bytes of their section */
    /* by place in the ranking, for its first `sized` places: the id's value and its record's
     * body bits (-1: it has no record) */
    long long *order_net, *order_body;
    Py_ssize_t sized;
    /* the same by place in the ascending ids of a walk of all of them (fit_all), or NULL */
    long long *all_net, *all_body;
} Fill;

/* fit's arguments, as its walks and its section need them */
typedef struct {
    int deltas, class_bits;
    long long tick, base, room, most;
    PyObject *entities, *deleted, *plans, *entering, *held;
} FitArgs;

static inline long long record_bytes(long long body, long long gap) {
    return (head_bits(gap) + body + 7) >> 3;
}

/* The first place in a[0..n) (ascending) whose value is not below x. */
static Py_ssize_t lower_bound(const long long *a, Py_ssize_t n, long long x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Put record (x, body) into the fill, keeping its bytes exact. */
static void fill_put(Fill *f, long long x, long long body, PyObject *id) {
    Py_ssize_t lo = lower_bound(f->net, f->n, x);
    long long before = lo ? f->net[lo - 1] : -1;
    f->used += record_bytes(body, x - before - 1);
    if (lo < f->n)
        f->used += record_bytes(f->body[lo], f->net[lo] - x - 1) -
                   record_bytes(f->body[lo], f->net[lo] - before - 1);
    size_t tail = (size_t)(f->n - lo);
    memmove(f->net + lo + 1, f->net + lo, tail * sizeof *f->net);
    memmove(f->body + lo + 1, f->body + lo, tail * sizeof *f->body);
    memmove(f->id + lo + 1, f->id + lo, tail * sizeof *f->id);
    f->net[lo] = x;
    f->body[lo] = body;
    f->id[lo] = id;
    f->n++;
}

/* The records of one id walked into the section (after bits `at` and the previous id):
 * their body bits in *body (-1: no record). */
static int walk_body(Walk *wk, PyObject *id, long long net_id, PyObject *entities,
                     PyObject *deleted, Py_ssize_t *hint, Py_ssize_t k, long long *body) {
    Sections *s = &wk->sec;
    Py_ssize_t before = s->count[0];
    long long at = 8 * (long long)s->out[0].len, head = head_bits(net_id - s->prev[0] - 1);
    s->bits = -1;
    if (walk_id(wk, id, entities, deleted, hint, k))
        return -1;
    *body = -1;
    if (s->count[0] == before)
        return 0;
    if (head < 0 || s->bits < at + head) {
        PyErr_SetString(PyExc_SystemError, "fit: a record's bits are unknown");
        return -1;
    }
    *body = s->bits - at - head;
    return 0;
}

/* Size the records of the ranking up to place upto (exclusive), those not sized yet, each
 * alone after a head of gap 0. */
static int size_upto(Walk *wk, Fill *f, PyObject *order, PyObject *entities, PyObject *deleted,
                     Py_ssize_t upto, Py_ssize_t *hint) {
    for (Py_ssize_t k = f->sized; k < upto; k++, f->sized++) {
        PyObject *id = PyList_GET_ITEM(order, k);
        long long net_id = PyLong_AsLongLong(id);
        if (net_id == -1 && PyErr_Occurred())
            return -1;
        warm_ahead(order, k, entities, wk->sec.base[0], NULL);
        f->order_net[k] = net_id;
        wk->sec.prev[0] = net_id - 1;
        wk->sec.out[0].len = 0;
        if (walk_body(wk, id, net_id, entities, deleted, hint, k, &f->order_body[k]))
            return -1;
    }
    return 0;
}

/* Down the ranking, the records that fit room (fill), each sized when first reached (wk: a
 * walk to size them with, or NULL when all are sized); how far it got in *reached. */
static int fill_down(Walk *wk, Fill *f, PyObject *order, PyObject *entities, PyObject *deleted,
                     long long room, long long most, Py_ssize_t *reached) {
    Py_ssize_t hint = 0, k = 0, n = PyList_GET_SIZE(order);
    for (; k < n; k++) {
        if (k >= f->sized && size_upto(wk, f, order, entities, deleted, k + 1, &hint))
            return -1;
        long long net_id = f->order_net[k], body = f->order_body[k];
        if (body < 0)
            continue;
        if (head_bits(net_id) < 0) { /* as the record alone, after no id, would be */
            PyErr_Format(PyExc_ValueError, "entity id gap %lld is over 32 bits", net_id);
            return -1;
        }
        long long alone = record_bytes(body, net_id);
        PyObject *id = PyList_GET_ITEM(order, k);
        if (alone > most) {
            PyErr_Format(PyExc_ValueError,
                         "entity %S's record is %lld bytes, over the %lld bytes an MTU-sized "
                         "packet has for records: raise the mtu",
                         id, alone, most);
            return -1;
        }
        if (f->used + alone > room)
            break;
        fill_put(f, net_id, body, id);
    }
    *reached = k;
    return 0;
}

/* Every record of ids (ascending) into the walk's one section, as assemble writes them, each
 * one's body bits noted by place. */
static int walk_all(Walk *wk, Fill *f, PyObject *ids, PyObject *entities, PyObject *deleted) {
    Py_ssize_t hint = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(ids); k++) {
        PyObject *id = PyList_GET_ITEM(ids, k);
        long long net_id = PyLong_AsLongLong(id);
        if (net_id == -1 && PyErr_Occurred())
            return -1;
        if (k && net_id <= f->all_net[k - 1]) {
            PyErr_SetString(PyExc_ValueError, "fit: the ids must ascend");
            return -1;
        }
        warm_ahead(ids, k, entities, wk->sec.base[0], wk);
        f->all_net[k] = net_id;
        if (walk_body(wk, id, net_id, entities, deleted, &hint, k, &f->all_body[k]))
            return -1;
    }
    return 0;
}

/* The ranking's ids and body bits, from the walk of all ids. */
static int ranked_bodies(Fill *f, PyObject *ids, PyObject *order) {
    Py_ssize_t n = PyList_GET_SIZE(ids);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(order); k++) {
        long long x = PyLong_AsLongLong(PyList_GET_ITEM(order, k));
        if (x == -1 && PyErr_Occurred())
            return -1;
        Py_ssize_t lo = lower_bound(f->all_net, n, x);
        if (lo == n || f->all_net[lo] != x) {
            PyErr_Format(PyExc_ValueError, "fit: ranked id %lld is not among the ids", x);
            return -1;
        }
        f->order_net[k] = x;
        f->order_body[k] = f->all_body[lo];
    }
    f->sized = PyList_GET_SIZE(order);
    return 0;
}

static PyObject *fit_section(const FitArgs *a, const Fill *f) {
    if (!f->n)
        return Py_BuildValue("(iy#)", 0, "", (Py_ssize_t)0);
    PyObject *ids = PyList_New(f->n), *bases = Py_BuildValue("[L]", a->base), *out = NULL;
    if (!ids || !bases)
        goto done;
    for (Py_ssize_t i = 0; i < f->n; i++) {
        Py_INCREF(f->id[i]);
        PyList_SET_ITEM(ids, i, f->id[i]);
    }
    PyObject *sections =
        assemble_walk(a->deltas, a->tick, bases, a->base ? a->base : -1, ids, a->entities,
                      a->deleted, a->plans, a->class_bits, a->entering, a->held, NULL, 0);
    if (!sections)
        goto done;
    out = PyList_GET_ITEM(sections, 0);
    Py_INCREF(out);
    Py_DECREF(sections);
    PyObject *bytes = PyTuple_GET_ITEM(out, 1);
    if (PyBytes_GET_SIZE(bytes) != f->used) {
        PyErr_Format(PyExc_SystemError, "fit: a section of %zd bytes, sized as %lld",
                     PyBytes_GET_SIZE(bytes), f->used);
        Py_CLEAR(out);
    }
done:
    Py_XDECREF(ids);
    Py_XDECREF(bases);
    return out;
}

/* A walk of fit's: one section for base, every record written into it (none put whole). */
static int fit_begin(Walk *wk, Writer *w, const FitArgs *a, int *owned, int *entered) {
    if (walk_begin(wk, w, 1, a->plans, owned, entered))
        return -1;
    wk->deltas = a->deltas;
    wk->class_bits = a->class_bits;
    wk->oldest = a->base ? a->base : -1;
    wk->tick = a->tick;
    wk->entering = a->entering;
    wk->held = a->held != Py_None && PyDict_GET_SIZE(a->held) ? a->held : Py_None;
    wk->sizing = 1;
    wk->sec.base[0] = a->base;
    return entering_sorted(wk);
}

/* fit with a ranking: its records sized as reached, the section of those that fit. */
static PyObject *fit_ranked(const FitArgs *a, Fill *f, PyObject *order, int sized) {
    Py_ssize_t reached = 0;
    int bad;
    if (sized) {
        bad = fill_down(NULL, f, order, a->entities, a->deleted, a->room, a->most, &reached);
    } else {
        Walk wk;
        Writer w = {0};
        int owned = 0, entered = 0;
        bad = fit_begin(&wk, &w, a, &owned, &entered) ||
              fill_down(&wk, f, order, a->entities, a->deleted, a->room, a->most, &reached);
        walk_end(&wk, &w, owned, entered);
    }
    PyObject *section = bad ? NULL : fit_section(a, f);
    PyObject *rest = section ? PyList_GetSlice(order, reached, PyList_GET_SIZE(order)) : NULL;
    if (!rest) {
        Py_XDECREF(section);
        return NULL;
    }
    return Py_BuildValue("(NN)", section, rest);
}

/* fit of all ids first: their section when it fits, else the ranking's fill from their sizes. */
static PyObject *fit_all(const FitArgs *a, Fill *f, PyObject *ids, PyObject *ranked) {
    Walk wk;
    Writer w = {0};
    int owned = 0, entered = 0, bad = fit_begin(&wk, &w, a, &owned, &entered);
    PyObject *section = NULL, *order = NULL, *result = NULL;
    if (!bad && !(wk.ring = PyMem_Calloc(RING, sizeof(Warmed)))) {
        PyErr_NoMemory();
        bad = 1;
    }
    bad = bad || walk_all(&wk, f, ids, a->entities, a->deleted);
    const Writer *o = &wk.sec.out[0];
    if (!bad && o->len <= a->room)
        section = Py_BuildValue("(ny#)", wk.sec.count[0], o->buf ? (const char *)o->buf : "",
                                o->len);
    walk_end(&wk, &w, owned, entered);
    if (bad || section)
        return section ? Py_BuildValue("(N[])", section) : NULL;
    order = PyObject_CallNoArgs(ranked);
    if (order && !PyList_Check(order))
        PyErr_SetString(PyExc_TypeError, "fit: ranked() must give a list of ids");
    else if (order && !ranked_bodies(f, ids, order))
        result = fit_ranked(a, f, order, 1);
    Py_XDECREF(order);
    return result;
}

static PyObject *py_fit(PyObject *self, PyObject *args) {
    FitArgs a;
    PyObject *order, *ranked;
    if (!PyArg_ParseTuple(args, "pLLO!O!O!OiOOLLO", &a.deltas, &a.tick, &a.base, &PyList_Type,
                          &order, &PyDict_Type, &a.entities, &PyDict_Type, &a.deleted, &a.plans,
                          &a.class_bits, &a.entering, &a.held, &a.room, &a.most, &ranked))
        return NULL;
    if (a.entering != Py_None && !PyAnySet_Check(a.entering)) {
        PyErr_SetString(PyExc_TypeError, "entering must be a set of ids or None");
        return NULL;
    }
    if (a.held != Py_None && !PyDict_Check(a.held)) {
        PyErr_SetString(PyExc_TypeError, "held must be a dict of ids or None");
        return NULL;
    }
    if (ranked != Py_None && !PyCallable_Check(ranked)) {
        PyErr_SetString(PyExc_TypeError, "ranked must be callable or None");
        return NULL;
    }
    size_t n = (size_t)PyList_GET_SIZE(order) + 1, all = ranked == Py_None ? 0 : n;
    Fill f = {0};
    f.net = PyMem_Malloc((4 * n + 2 * all) * sizeof(long long));
    f.id = PyMem_Malloc(n * sizeof *f.id);
    PyObject *result = NULL;
    Py_INCREF(order); /* its items stay borrowed while coders' fragment() run Python */
    if (!f.net || !f.id) {
        PyErr_NoMemory();
    } else {
        f.body = f.net + n;
        f.order_net = f.net + 2 * n;
        f.order_body = f.net + 3 * n;
        f.all_net = all ? f.net + 4 * n : NULL;
        f.all_body = all ? f.net + 5 * n : NULL;
        result = all ? fit_all(&a, &f, order, ranked) : fit_ranked(&a, &f, order, 0);
    }
    Py_DECREF(order);
    PyMem_Free(f.net);
    PyMem_Free(f.id);
    return result;
}

/* ---- World.commit's loop over the dirty entities ------------------------------------------ */

/* A history entry whose tick and mask are ints and whose bits before are ints can be in no
 * reference cycle, so it is taken out of the cyclic collector's lists at once, with its tuple
 * of bits before: each entity's 32 entries (320,000 in the 10,000-entity benchmark) were
 * otherwise walked by every full collection, and the 10,000 made a tick brought one about every
 * ten ticks (docs/replication-interest-performance.md, "The collector"). */

/* The bits before of a dirty entity (its write path's {index: bits}) as a history entry keeps
 * them: a tuple of the bits of each set bit of mask, ascending, so that a record's walk takes a
 * baseline by its rank among them instead of a dict lookup in an entry tens of ticks old. A
 * new reference, or NULL: the mapping's own error for an index it lacks (a dict's KeyError),
 * a RuntimeError when it holds another number of them. */
static PyObject *before_tuple(PyObject *before, PyObject *mask) {
    Py_ssize_t n = PyObject_Size(before), nbytes = 8;
    if (n < 0)
        return NULL;
    PyObject *wide = NULL, *out = NULL;
    unsigned long long m = PyLong_CheckExact(mask) ? PyLong_AsUnsignedLongLong(mask) : 0;
    const uint8_t *p = NULL;
    if (!PyLong_CheckExact(mask) || (m == (unsigned long long)-1 && PyErr_Occurred())) {
        PyErr_Clear(); /* past 64 bits (or not an exact int): its bytes, little-endian */
        PyObject *len = PyObject_CallMethod(mask, "bit_length", NULL);
        Py_ssize_t nbits = len ? PyLong_AsSsize_t(len) : -1;
        Py_XDECREF(len);
        if (nbits < 0)
            return NULL;
        nbytes = (nbits + 7) / 8;
        wide = PyObject_CallMethod(mask, "to_bytes", "ns", nbytes, "little");
        if (!wide)
            return NULL;
        if (!PyBytes_Check(wide)) {
            PyErr_SetString(PyExc_TypeError, "a mask's bytes are not bytes");
            goto done;
        }
        p = (const uint8_t *)PyBytes_AS_STRING(wide);
    }
    /* a mask of 64 bits or fewer is one word: one popcount and its set bits, not eight of
     * each (the per-byte count was a twentieth of the commit's instructions) */
    Py_ssize_t count = 0;
    if (p)
        for (Py_ssize_t k = 0; k < nbytes; k++)
            count += popcount64(p[k]);
    else
        count = popcount64(m);
    if (count != n) {
        PyErr_SetString(PyExc_RuntimeError, "the bits before do not match the changed mask");
        goto done;
    }
    if (!(out = PyTuple_New(n)))
        goto done;
    Py_ssize_t r = 0;
    for (Py_ssize_t k = 0; k < (p ? nbytes : 1); k++) {
        unsigned long long word = p ? p[k] : m;
        for (; word; word &= word - 1, r++) {
            PyObject *key = PyLong_FromSsize_t((p ? 8 * k : 0) + ctz64(word));
            PyObject *v = key ? PyObject_GetItem(before, key) : NULL;
            Py_XDECREF(key);
            if (!v) {
                Py_CLEAR(out);
                goto done;
            }
            PyTuple_SET_ITEM(out, r, v);
        }
    }
done:
    Py_XDECREF(wide);
    return out;
}

/* Whether every item of t is an exact int (no reference cycle can pass through it). */
static int all_ints(PyObject *t) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(t); k++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(t, k)))
            return 0;
    return 1;
}

/* The oldest entry of hist rewritten in place as the new one (tick, mask, bits before, None)
 * when the commit would drop it and nothing but hist holds it: the entry and its tuple of bits
 * before (when it has as many) are the commit's two tuples of a moved entity, which otherwise
 * cost their allocation, the young collections it brings and their freeing 32 ticks later. A
 * tuple no one else holds cannot be seen to change (CPython's own zip and enumerate reuse
 * their result tuples alike). Only an entry this commit untracked is taken (ints and a tuple
 * of ints: freeing what it held runs no code), and only for a mask of 64 bits or fewer whose
 * bits before, a dict, are exact ints. 1: reused, 0: not (nothing done), -1: an error, as
 * before_tuple's. docs/replication-interest-performance.md, "The commit's entries reused". */
static int reuse_entry(PyObject *hist, long long oldest, PyObject *tick, PyObject *mask,
                       PyObject *before) {
#if PY_VERSION_HEX >= 0x030E0000 || defined(Py_GIL_DISABLED)
    /* From 3.14 a tuple caches its hash, which a rewrite would leave stale, and without the
     * GIL a reference count of one does not prove that no other thread holds the entry. */
    (void)hist, (void)oldest, (void)tick, (void)mask, (void)before;
    return 0;
#else
    if (!PyList_CheckExact(hist) || !PyList_GET_SIZE(hist) || !PyLong_CheckExact(tick) ||
        !PyLong_CheckExact(mask) || !PyDict_CheckExact(before))
        return 0; /* (an exact dict of ints runs no code while the entry is borrowed) */
    PyObject *e = PyList_GET_ITEM(hist, 0);
    if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 4 || Py_REFCNT(e) != 1 ||
        PyObject_GC_IsTracked(e) || !PyLong_CheckExact(PyTuple_GET_ITEM(e, 0)))
        return 0;
    long long t = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 0));
    unsigned long long m = t == -1 && PyErr_Occurred() ? 0 : PyLong_AsUnsignedLongLong(mask);
    if (PyErr_Occurred()) {
        PyErr_Clear(); /* a tick past 64 bits, or a mask past them: the general path */
        return 0;
    }
    if (t > oldest)
        return 0;
    Py_ssize_t n = PyObject_Size(before);
    if (n < 0)
        return -1;
    if (n != popcount64(m)) {
        PyErr_SetString(PyExc_RuntimeError, "the bits before do not match the changed mask");
        return -1;
    }
    PyObject *vals[64];
    Py_ssize_t r = 0;
    for (unsigned long long word = m; word; word &= word - 1, r++) {
        PyObject *key = PyLong_FromLong(ctz64(word));
        vals[r] = key ? PyObject_GetItem(before, key) : NULL;
        Py_XDECREF(key);
        if (!vals[r] || !PyLong_CheckExact(vals[r])) {
            int bad = !vals[r];
            while (r >= 0)
                Py_XDECREF(vals[r--]);
            return bad ? -1 : 0;
        }
    }
    PyObject *flat = PyTuple_GET_ITEM(e, 2);
    if (PyTuple_CheckExact(flat) && Py_REFCNT(flat) == 1 && PyTuple_GET_SIZE(flat) == n &&
        !PyObject_GC_IsTracked(flat)) {
        for (r = 0; r < n; r++) {
            PyObject *was = PyTuple_GET_ITEM(flat, r);
            PyTuple_SET_ITEM(flat, r, vals[r]);
            Py_DECREF(was);
        }
    } else {
        PyObject *fresh = PyTuple_New(n);
        if (!fresh) {
            for (r = 0; r < n; r++)
                Py_DECREF(vals[r]);
            return -1;
        }
        for (r = 0; r < n; r++)
            PyTuple_SET_ITEM(fresh, r, vals[r]);
        PyObject_GC_UnTrack(fresh);
        PyTuple_SET_ITEM(e, 2, fresh);
        Py_DECREF(flat);
    }
    PyObject *items[4] = {tick, mask, NULL, Py_None};
    for (int k = 0; k < 4; k++) {
        if (!items[k])
            continue;
        PyObject *was = PyTuple_GET_ITEM(e, k);
        Py_INCREF(items[k]);
        PyTuple_SET_ITEM(e, k, items[k]);
        Py_DECREF(was);
    }
    return 1;
#endif
}

/* One dirty entity: its history gets (tick, mask, bits before, None), entries at or before
 * oldest are dropped, and its record cache starts again. */
static int ent_set(PyObject *ent, PyObject *dict, PyObject *name, PyObject *value) {
    return dict ? PyDict_SetItem(dict, name, value) : PyObject_GenericSetAttr(ent, name, value);
}

/* An entity's history list and its bits and widths lists, at its first commit with an entry
 * untracked: none can be in a cycle (entries, which hold ints and dicts of ints, or the pure
 * assembler's fragments of ints; ints), and a full collection would still read the header of
 * every entry through the history list, 320,000 in the benchmark. Each is untracked only if
 * it is a list (a list is never tracked again, whatever it holds later). */
static int untrack_lists(PyObject *ent, PyObject *dict, PyObject *hist) {
    PyObject *bits = ent_attr(ent, dict, s_bits);
    PyObject *widths = bits ? ent_attr(ent, dict, s_widths) : NULL;
    if (!widths) {
        Py_XDECREF(bits);
        return -1;
    }
    PyObject *lists[3] = {hist, bits, widths};
    for (int k = 0; k < 3; k++)
        if (PyList_CheckExact(lists[k]) && PyObject_GC_IsTracked(lists[k]))
            PyObject_GC_UnTrack(lists[k]);
    Py_DECREF(bits);
    Py_DECREF(widths);
    return 0;
}

/* ent_attr with dict_item's hint of where the name was in the last entity's dict (a new
 * reference; getattr when the dict lacks it): the commit's four reads of a dirty entity (its
 * world, dirty mask, history and bits before) were a sixth of its instructions as lookups,
 * and the interest's moves read the same way. */
static PyObject *ent_hinted(PyObject *ent, PyObject *dict, int a, PyObject *name) {
    return found_or_getattr(ent, dict ? dict_item(dict, a, name) : NULL, name);
}

/* An entity's net id read at the commit (A_NET_ID), or -1 with an error. */
static long long commit_net_id(PyObject *ent, PyObject *dict) {
    PyObject *id_o = ent_hinted(ent, dict, A_NET_ID, s_net_id);
    long long net_id = id_o ? PyLong_AsLongLong(id_o) : -1;
    Py_XDECREF(id_o);
    return net_id;
}

/* The commit of an entity whose history a ring holds (_table.h): the entry appended there and
 * those at or before oldest dropped. 1: done; 0: the ring cannot hold this entry, and the
 * history is a list again (*hist, a new reference), for the list's path to write; -1: error. */
static int commit_ring(Table *t, PyObject *ent, PyObject *dict, long long now, long long oldest,
                       PyObject *mask, PyObject *before, PyObject **hist) {
    long long net_id = commit_net_id(ent, dict);
    if (net_id == -1 && PyErr_Occurred())
        return -1;
    if (!table_owned(t, net_id, ent))
        return -1;
    Ring *r = &t->rings[net_id];
    int put = ring_commit(r, now, mask, before, oldest);
    if (put)
        return put;
    PyObject *list = ring_entries(r);
    if (!list || ent_set(ent, dict, s_hist, list)) {
        Py_XDECREF(list);
        return -1;
    }
    r->usable = 0; /* not tried again: the list holds it from now on */
    Py_SETREF(*hist, list);
    return 0;
}

/* After the list's path wrote ent's history list hist: a ring takes it when it can hold it
 * (and _net_hist becomes None), unless one could not before. */
static int commit_adopt(Table *t, PyObject *ent, PyObject *dict, PyObject *hist) {
    long long net_id = commit_net_id(ent, dict);
    if (net_id == -1 && PyErr_Occurred())
        return -1;
    if (net_id < 0)
        return 0;
    const Ring *r = table_ring(t, net_id);
    if (r && r->ent == ent && !r->usable)
        return 0;
    PyObject *bits = ent_hinted(ent, dict, A_BITS, s_bits);
    if (!bits)
        return -1;
    Py_ssize_t nprops = PyList_Check(bits) ? PyList_GET_SIZE(bits) : -1;
    Py_DECREF(bits);
    int took = table_adopt(t, ent, hist, net_id, nprops);
    return took > 0 ? ent_set(ent, dict, s_hist, Py_None) : took;
}

/* A changed entity's record cache emptied, as the pure commit's new dict: the dict it has,
 * an exact one, cleared in place (left as it is when empty) instead of replaced, so that the
 * commit makes no dict a dirty entity and frees none (a new one each was a fifth of the
 * commit's time, docs/replication-interest-performance.md, "The snapshot's misses"). A
 * cache is read only by whoever reaches it through the entity, and the walk's warmed
 * references to it end with its call. Anything else there (or none): a new dict. */
static int cache_reset(PyObject *ent, PyObject *dict) {
    PyObject *cache = dict ? dict_item(dict, A_CACHE, s_cache) : NULL;
    if (cache && PyDict_CheckExact(cache)) {
        if (PyDict_GET_SIZE(cache))
            PyDict_Clear(cache);
        return 0;
    }
    if (PyErr_Occurred())
        return -1;
    PyObject *fresh = PyDict_New();
    int rc = !fresh || ent_set(ent, dict, s_cache, fresh) ? -1 : 0;
    Py_XDECREF(fresh);
    return rc;
}

/* One dirty entity: its history gets (tick, mask, bits before, None) (in its ring, or its list
 * as the entry's tuple), entries at or before oldest are dropped, and its record cache starts
 * again. */
static int commit_one(PyObject *world, PyObject *ent, PyObject *tick, long long oldest,
                      PyObject *zero, Table *t, long long now) {
    PyObject *dict = ent_dict(ent);
    PyObject *owner = ent_hinted(ent, dict, A_WORLD, s_world);
    if (!owner) {
        Py_XDECREF(dict);
        return -1;
    }
    Py_DECREF(owner);
    if (owner != world) {
        Py_XDECREF(dict);
        return 0; /* despawned since it was written */
    }
    PyObject *mask = ent_hinted(ent, dict, A_DIRTY, s_dirty);
    if (!mask) {
        Py_XDECREF(dict);
        return -1;
    }
    int rc = -1, any;
    PyObject *hist = NULL, *before = NULL, *flat = NULL, *entry = NULL;
    if (ent_set(ent, dict, s_dirty, zero) || (any = PyObject_IsTrue(mask)) < 0)
        goto done;
    if (!any) {
        rc = 0;
        goto done;
    }
    hist = ent_hinted(ent, dict, A_HIST, s_hist);
    before = hist ? ent_hinted(ent, dict, A_BEFORE, s_before) : NULL;
    if (!before)
        goto done;
    int in_ring = t && hist == Py_None ? commit_ring(t, ent, dict, now, oldest, mask, before, &hist)
                                       : 0;
    if (in_ring < 0)
        goto done;
    if (!in_ring) {
        if (!PyList_Check(hist)) {
            PyErr_SetString(PyExc_TypeError, "_net_hist must be a list");
            goto done;
        }
        int reused = reuse_entry(hist, oldest, tick, mask, before);
        if (reused < 0)
            goto done;
        if (reused) { /* the first entry, now the newest: appended, then dropped from the front */
            Py_INCREF(entry = PyList_GET_ITEM(hist, 0));
        } else {
            flat = before_tuple(before, mask);
            entry = flat ? PyTuple_Pack(4, tick, mask, flat, Py_None) : NULL;
            if (!entry)
                goto done;
            if (PyLong_CheckExact(tick) && PyLong_CheckExact(mask) && all_ints(flat)) {
                PyObject_GC_UnTrack(flat); /* see above */
                PyObject_GC_UnTrack(entry);
                if (PyList_CheckExact(hist) && PyObject_GC_IsTracked(hist) &&
                    untrack_lists(ent, dict, hist))
                    goto done;
            }
        }
        if (PyList_Append(hist, entry))
            goto done;
        Py_ssize_t old = reused; /* a reused first entry was at or before oldest */
        for (; old < PyList_GET_SIZE(hist); old++) {
            long long t_old;
            PyObject *m;
            if (entry_unpack(hist, old, &t_old, &m))
                goto done;
            if (t_old > oldest)
                break;
        }
        if (old && PyList_SetSlice(hist, 0, old, NULL))
            goto done;
        if (t && commit_adopt(t, ent, dict, hist))
            goto done;
    }
    rc = cache_reset(ent, dict);
done:
    Py_XDECREF(dict);
    Py_DECREF(mask);
    Py_XDECREF(hist);
    Py_XDECREF(before);
    Py_XDECREF(flat);
    Py_XDECREF(entry);
    return rc;
}

/* The rings the commit writes next (dirty[from:from + 16]): each entity, then its dict, then
 * its dirty mask, bits before and record cache and its ring's header and the line its next
 * entry goes to, then the two dicts' tables, asked for level by level. */
static void warm_rings(const Table *t, PyObject *dirty, Py_ssize_t from) {
    Py_ssize_t to = PyList_GET_SIZE(dirty) < from + 16 ? PyList_GET_SIZE(dirty) : from + 16;
    PyObject *dicts[16];
    int n = 0;
    for (Py_ssize_t j = from; j < to; j++)
        PREFETCH(PyList_GET_ITEM(dirty, j));
    for (Py_ssize_t j = from; j < to; j++) {
        PyObject *dict = ent_dict(PyList_GET_ITEM(dirty, j));
        if (dict) {
            PREFETCH(((PyDictObject *)dict)->ma_values);
            dicts[n++] = dict;
        }
    }
    const Ring *rings[16];
    PyObject *held[2 * 16]; /* the record caches and bits before, exact dicts (borrowed) */
    int m = 0, c = 0;
    for (int i = 0; i < n; i++) {
        /* what commit_one reads next: the dirty mask, the bits before, the record cache */
        PyObject *found[3] = {dict_item(dicts[i], A_DIRTY, s_dirty),
                              dict_item(dicts[i], A_BEFORE, s_before),
                              dict_item(dicts[i], A_CACHE, s_cache)};
        for (int k = 0; k < 3; k++) {
            PREFETCH(found[k]);
            if (k && found[k] && PyDict_CheckExact(found[k]))
                held[c++] = found[k];
        }
        PyObject *id = dict_item(dicts[i], A_NET_ID, s_net_id);
        long long net = id && PyLong_CheckExact(id) ? PyLong_AsLongLong(id) : -1;
        if (PyErr_Occurred())
            PyErr_Clear();
        if (net >= 0 && net < t->n) /* (its header, whether a ring is there or not) */
            PREFETCH(rings[m++] = &t->rings[net]);
        Py_DECREF(dicts[i]);
    }
    for (int i = 0; i < m; i++) {
        const Ring *r = rings[i];
        if (r->data)
            PREFETCH(r->data + (size_t)ring_at(r, r->n < r->cap ? r->n : 0) * (size_t)r->stride);
    }
    for (int i = 0; i < c; i++) /* their tables: the lookups, or what a clear frees */
        PREFETCH(((PyDictObject *)held[i])->ma_keys);
}

static PyObject *py_commit(PyObject *self, PyObject *args) {
    PyObject *world, *dirty, *tick;
    long long oldest;
    if (!PyArg_ParseTuple(args, "OO!O!L", &world, &PyList_Type, &dirty, &PyLong_Type, &tick,
                          &oldest))
        return NULL;
    PyObject *zero = PyLong_FromLong(0);
    if (!zero)
        return NULL;
    long long now = PyLong_AsLongLong(tick);
    if (now == -1 && PyErr_Occurred()) {
        Py_DECREF(zero);
        return NULL;
    }
    /* the world's rings (_table.h), if it has them */
    PyObject *table = PyObject_GetAttrString(world, "history_table");
    if (!table)
        PyErr_Clear();
    Table *t = table && Py_TYPE(table) == &TableType ? (Table *)table : NULL;
    if (t && table_busy(t)) {
        Py_DECREF(table);
        Py_DECREF(zero);
        return NULL;
    }
    int rc = 0;
    Py_INCREF(dirty);
    if (t) /* a conversion that runs Python code (a mask's __index__) cannot commit again */
        t->walking++;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(dirty) && !rc; k++) {
        if (t && k % 16 == 0)
            warm_rings(t, dirty, k + 16);
        PyObject *ent = PyList_GET_ITEM(dirty, k);
        Py_INCREF(ent);
        rc = commit_one(world, ent, tick, oldest, zero, t, now);
        Py_DECREF(ent);
    }
    if (t)
        t->walking--;
    Py_DECREF(dirty);
    Py_DECREF(zero);
    Py_XDECREF(table);
    if (rc)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- the interest's reading of positions, cells and centres ------------------------------- */

/* The same rounding as the pure one's (x - cx) * (x - cx) + ...: no fused multiply-adds (GCC
 * makes none in its ISO C modes, as setup.py's -std=c99; clang needs telling). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The dims numbers of seq (a position or a cell) into x; -1 with an exception set: not_seq
 * if it is no sequence, a ValueError naming what it is if it has another length, the number's
 * own error if an item is not one. */
static int read_coords(PyObject *seq, Py_ssize_t dims, double *x, const char *not_seq,
                       const char *what) {
    /* a tuple of floats and small ints (a cell, each aim reads of every cell it watches): read
     * in place, as PyFloat_AsDouble reads them (an int below 2**53 is the same double) */
    Py_ssize_t d = 0;
    for (; PyTuple_CheckExact(seq) && PyTuple_GET_SIZE(seq) == dims && d < dims; d++) {
        PyObject *item = PyTuple_GET_ITEM(seq, d);
        long long v;
        if (PyFloat_CheckExact(item))
            x[d] = PyFloat_AS_DOUBLE(item);
        else if (small_int(item, &v) && v < ((long long)1 << 53) && v > -((long long)1 << 53))
            x[d] = (double)v;
        else
            break;
    }
    if (d == dims)
        return 0;
    PyObject *fast = PySequence_Fast(seq, not_seq);
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != dims) {
        PyErr_Format(PyExc_ValueError, "%s has %zd coordinates, not %zd", what,
                     PySequence_Fast_GET_SIZE(fast), dims);
        Py_DECREF(fast);
        return -1;
    }
    for (d = 0; d < dims; d++) {
        x[d] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, d));
        if (x[d] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* A position's dims (2 or 3) coordinates into x; -1 with an exception set if it is not such a
 * position. */
static int read_point(PyObject *p, Py_ssize_t dims, double *x) {
    return read_coords(p, dims, x, "a position must be a sequence of numbers", "a position");
}

/* The centre's coordinates into c (2 or 3 of them); -1 with an exception set if it is not. */
static int read_centre(PyObject *centre, double *c, Py_ssize_t *dims) {
    PyObject *fast = PySequence_Fast(centre, "a centre must be a sequence of numbers");
    if (!fast)
        return -1;
    *dims = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t d = 0; d < *dims && d < 3; d++)
        c[d] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, d));
    Py_DECREF(fast);
    if (PyErr_Occurred())
        return -1;
    if (*dims != 2 && *dims != 3) {
        PyErr_Format(PyExc_ValueError, "a centre has 2 or 3 coordinates, not %zd", *dims);
        return -1;
    }
    return 0;
}

/* ---- the interest's aim of a view: every entity it watches tested, what changed recorded --- */

static PyObject *s_client_id, *g_everywhere; /* "client_id"; (), the cell of no position */

/* A view's record, as aim and retest take it: (relevant, order, changes, seen_by,
 * client), the view's relevant entities by id, their ids ascending, its changes of the tick,
 * the interest's viewers by id, and its client; with the client's id, read once a call. */
typedef struct {
    PyObject *relevant, *order, *changes, *seen_by, *client, *client_id;
} View;

/* The record `view` into v (borrowed from the tuple, but for the client's id, a new
 * reference); -1 with a TypeError naming what is wrong if it is not such a record (or the
 * client's id's error). */
static int view_record(PyObject *view, View *v) {
    if (!PyTuple_CheckExact(view) || PyTuple_GET_SIZE(view) != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "a view's record is a tuple (relevant, order, changes, seen_by, client)");
        return -1;
    }
    v->relevant = PyTuple_GET_ITEM(view, 0);
    v->order = PyTuple_GET_ITEM(view, 1);
    v->changes = PyTuple_GET_ITEM(view, 2);
    v->seen_by = PyTuple_GET_ITEM(view, 3);
    v->client = PyTuple_GET_ITEM(view, 4);
    const char *wrong = !PyDict_Check(v->relevant) ? "a view's relevant entities must be a dict"
                        : !PyList_Check(v->order)  ? "a view's order must be a list"
                        : !PyDict_Check(v->changes) ? "a view's changes must be a dict"
                        : !PyDict_Check(v->seen_by) ? "an interest's viewers must be a dict"
                                                    : NULL;
    if (wrong) {
        PyErr_SetString(PyExc_TypeError, wrong);
        return -1;
    }
    v->client_id = PyObject_GetAttr(v->client, s_client_id);
    return v->client_id ? 0 : -1;
}

/* Whether the cell (dims ints) lies wholly within r2 (squared) of c: its farthest corner's
 * squared distance, summed as the pure one sums it (a NaN is not within); -1 on an error. */
static int cell_inside(PyObject *cell, const double *c, Py_ssize_t dims, double size, double r2) {
    double k[3];
    if (read_coords(cell, dims, k, "a cell must be a sequence of ints", "a cell"))
        return -1;
    double far = 0.0;
    for (Py_ssize_t d = 0; d < dims; d++) {
        double low = k[d] * size - c[d];
        double near = low * low, other = (low + size) * (low + size);
        far += other > near ? other : near; /* max(near, other): the first unless less */
    }
    return far <= r2;
}


/* An entity of a cell as aim reads it: its id as a C number and the place of its item in the
 * bucket's table (PyDict_Next's position), where its id and entity are found again when it
 * enters a view; at < 0 (~place): an id that is no C number. */
typedef struct {
    long long id;
    Py_ssize_t at;
} PackedId;

static int pick_number(PyObject *id, long long *x);

/* The next window of dict's keys from position *i (borrowed; at most WARM, and at most left
 * of them), each asked for (a prefetch) and, with places, its item's place (PyDict_Next's
 * position): their count, below WARM only at the dict's end. Readers take a window of ids
 * this way, then read them: each id is a cold int, and their misses then overlap. */
static int next_keys(PyObject *dict, Py_ssize_t *i, Py_ssize_t left, PyObject **keys,
                     Py_ssize_t *places) {
    PyObject *key, *value;
    int w = 0;
    for (; w < WARM && w < left && PyDict_Next(dict, i, &key, &value); w++) {
        PREFETCH(key);
        keys[w] = key;
        if (places)
            places[w] = *i - 1;
    }
    return w;
}

/* What aim reads of a cell, read once an update (memo[cell]): (bucket, ids, coordinates), the
 * grid's bucket itself, a PackedId per entity in its order (bytes), and their positions'
 * coordinates, dims doubles each (bytes), or None until a sweep needs them. No reference to
 * an entity or id is taken: those are read again from the bucket only for what enters (a
 * reference to every entity of the grid was taken and dropped once an update, each a miss,
 * and each view then read the ids it found as Python ints). */
static PyObject *pack_ids(PyObject *bucket) {
    Py_ssize_t n = PyDict_GET_SIZE(bucket), i = 0, k = 0, place[WARM];
    PyObject *ids = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(PackedId));
    PyObject *keys[WARM];
    if (!ids)
        return NULL;
    PackedId *e = (PackedId *)PyBytes_AS_STRING(ids);
    for (int w = WARM; w == WARM;) {
        w = next_keys(bucket, &i, n - k, keys, place);
        for (int j = 0; j < w; j++, k++)
            e[k].at = pick_number(keys[j], &e[k].id) ? place[j] : ~place[j];
    }
    if (k != n || PyDict_GET_SIZE(bucket) != n) {
        PyErr_SetString(PyExc_RuntimeError, "a cell's entities changed while it was read");
        Py_CLEAR(ids);
    }
    return ids;
}

/* The coordinates of a bucket's positions into xs when each is an exact tuple of dims exact
 * floats (by ids that are exact ints), read as they are looked up: nothing is called that
 * could run code, so no reference is taken (a new and a dropped one for each id and position
 * of the grid otherwise). 1: done; 0: a position is missing or of another kind (pack_coords then reads them
 * all its way, meeting the error the pure one meets, if any); -1: a lookup's error. */
static int plain_coords(PyObject *bucket, PyObject *pos, Py_ssize_t dims, double *xs) {
    Py_ssize_t i = 0, n = PyDict_GET_SIZE(bucket), k = 0;
    PyObject *keys[WARM], *points[WARM];
    /* a window at a time, each level asked for before it is read (ids, positions, their
     * coordinates): the misses of a window overlap instead of following each other */
    for (int w = WARM; w == WARM;) {
        w = next_keys(bucket, &i, n - k, keys, NULL);
        for (int j = 0; j < w; j++)
            if (!PyLong_CheckExact(keys[j]))
                return 0; /* its hash or comparison could run code */
        for (int j = 0; j < w; j++) {
            PyObject *p = PyDict_GetItemWithError(pos, keys[j]);
            if (!p)
                return PyErr_Occurred() ? -1 : 0;
            PREFETCH(p);
            points[j] = p;
        }
        for (int j = 0; j < w; j++) {
            PyObject *p = points[j];
            if (!PyTuple_CheckExact(p) || PyTuple_GET_SIZE(p) != dims)
                return 0;
            for (Py_ssize_t d = 0; d < dims; d++)
                PREFETCH(PyTuple_GET_ITEM(p, d));
        }
        for (int j = 0; j < w; j++, k++, xs += dims)
            for (Py_ssize_t d = 0; d < dims; d++) {
                PyObject *x = PyTuple_GET_ITEM(points[j], d);
                if (!PyFloat_CheckExact(x))
                    return 0;
                xs[d] = PyFloat_AS_DOUBLE(x);
            }
    }
    return k == n && PyDict_GET_SIZE(bucket) == n;
}

/* The coordinates of a bucket's positions, in its order (bytes). Positions are looked up first
 * (a missing one kept as NULL), then read in order, so that an error is the one the pure sweep
 * meets first (plain_coords when it can). */
static PyObject *pack_coords(PyObject *bucket, PyObject *pos, Py_ssize_t dims) {
    Py_ssize_t n = PyDict_GET_SIZE(bucket), i = 0, k = 0;
    PyObject *coords = PyBytes_FromStringAndSize(NULL, n * dims * (Py_ssize_t)sizeof(double));
    PyObject *keys = NULL, *points = NULL, *key, *ent, *out = NULL;
    int plain = coords ? plain_coords(bucket, pos, dims, (double *)PyBytes_AS_STRING(coords)) : -1;
    if (plain > 0)
        return coords;
    if (plain < 0)
        goto done;
    if (!(keys = PyTuple_New(n)) || !(points = PyTuple_New(n)))
        goto done;
    while (k < n && PyDict_Next(bucket, &i, &key, &ent)) {
        PyObject *p = PyDict_GetItemWithError(pos, key);
        if (!p && PyErr_Occurred())
            goto done;
        PyTuple_SET_ITEM(keys, k, Py_NewRef(key));
        PyTuple_SET_ITEM(points, k++, Py_XNewRef(p));
    }
    if (k != n || PyDict_GET_SIZE(bucket) != n) {
        PyErr_SetString(PyExc_RuntimeError, "a cell's entities changed while it was read");
        goto done;
    }
    double *xs = (double *)PyBytes_AS_STRING(coords);
    for (k = 0; k < n; k++) {
        PyObject *p = PyTuple_GET_ITEM(points, k);
        if (!p) {
            PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(keys, k));
            goto done;
        }
        if (read_point(p, dims, xs + k * dims))
            goto done;
    }
    out = Py_NewRef(coords);
done:
    Py_XDECREF(keys);
    Py_XDECREF(points);
    Py_XDECREF(coords);
    return out;
}

/* memo[cell] for the grid's bucket, packed from it the first time, with its coordinates when
 * swept is set (read then if not yet); a borrowed reference. A value of memo that is not one
 * packed_cell made of this bucket for dims coordinates is a TypeError. */
static PyObject *packed_cell(PyObject *memo, PyObject *cell, PyObject *bucket, PyObject *pos,
                             Py_ssize_t dims, int swept) {
    PyObject *packed = PyDict_GetItemWithError(memo, cell), *ids, *coords;
    if (!packed && PyErr_Occurred())
        return NULL;
    if (packed) {
        Py_ssize_t n = PyDict_GET_SIZE(bucket);
        if (!PyTuple_CheckExact(packed) || PyTuple_GET_SIZE(packed) != 3 ||
            PyTuple_GET_ITEM(packed, 0) != bucket ||
            !PyBytes_CheckExact(ids = PyTuple_GET_ITEM(packed, 1)) ||
            PyBytes_GET_SIZE(ids) != n * (Py_ssize_t)sizeof(PackedId) ||
            ((coords = PyTuple_GET_ITEM(packed, 2)) != Py_None &&
             (!PyBytes_CheckExact(coords) ||
              PyBytes_GET_SIZE(coords) != n * dims * (Py_ssize_t)sizeof(double)))) {
            PyErr_SetString(PyExc_TypeError, "a memo of cells holds what aim read of them");
            return NULL;
        }
        if (!swept || coords != Py_None)
            return packed;
        Py_INCREF(ids);
    } else if (!(ids = pack_ids(bucket))) {
        return NULL;
    }
    coords = swept ? pack_coords(bucket, pos, dims) : Py_NewRef(Py_None);
    packed = coords ? PyTuple_Pack(3, bucket, ids, coords) : NULL;
    Py_DECREF(ids);
    Py_XDECREF(coords);
    if (!packed)
        return NULL;
    int rc = PyDict_SetItem(memo, cell, packed);
    Py_DECREF(packed);
    return rc ? NULL : packed;
}

/* The id and entity (borrowed) of a packed entity e, from its bucket's item at its place; a
 * RuntimeError if that item is not there, or holds another id. */
static int packed_entry(PyObject *bucket, const PackedId *e, PyObject **id, PyObject **ent) {
    Py_ssize_t place = e->at < 0 ? ~e->at : e->at, at = place;
    long long x;
    if (!PyDict_Next(bucket, &at, id, ent) || at != place + 1 ||
        (e->at >= 0 && (!pick_number(*id, &x) || x != e->id))) {
        PyErr_SetString(PyExc_RuntimeError, "a cell's entities changed while it was read");
        return -1;
    }
    return 0;
}

static int aim_set(const View *v, PyObject *id, PyObject *ent);

/* What a view's area holds, taken against its relevant ids as it is found (aim without a
 * rule): a table of ids, open addressing on C numbers, holding each relevant id (its place in
 * the view's order of relevant, whether found again) and each id found that is not relevant
 * (its place among those entering, whose ids and entities are kept in found order). So only
 * what enters is kept, instead of a dict of all found that the view's relevant is then
 * walked against. An id that is not an int of 64 bits makes it give up (slow): the caller
 * then takes the dict's way, which any id can. */
typedef struct {
    long long id;
    Py_ssize_t at; /* -1 empty; below held, a relevant id's place; else held + an entering one's */
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;                    /* slots - 1, slots a power of 2 */
    Py_ssize_t used, held, kept;    /* slots used; relevant ids; those found again */
    PyObject **ids;                 /* the relevant ids in the view's order (new references) */
    char *again;                    /* whether each was found again */
    PyObject *enter_ids, *enter_ents; /* what enters, in found order */
    int slow;
} Pick;

/* The slot of id x in p's table: its own, or the empty one where it goes. */
static Slot *pick_slot(Pick *p, long long x) {
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ULL;
    size_t k = (size_t)(h ^ (h >> 29)) & p->mask;
    while (p->slots[k].at >= 0 && p->slots[k].id != x)
        k = (k + 1) & p->mask;
    return &p->slots[k];
}

/* p's table made (or made again) for at least `need` ids; -1 with MemoryError. */
static int pick_grow(Pick *p, Py_ssize_t need) {
    size_t size = 64;
    while (size < (size_t)need * 2)
        size *= 2;
    Slot *old = p->slots, *slots = PyMem_Malloc(size * sizeof(Slot));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k < size; k++)
        slots[k].at = -1;
    size_t before = old ? p->mask + 1 : 0;
    p->slots = slots;
    p->mask = size - 1;
    for (size_t k = 0; k < before; k++)
        if (old[k].at >= 0)
            *pick_slot(p, old[k].id) = old[k];
    PyMem_Free(old);
    return 0;
}

/* id as a C number into *x; 0 if it is none (an int beyond 64 bits, or no int). */
static int pick_number(PyObject *id, long long *x) {
    int over = 0;
    if (!PyLong_CheckExact(id))
        return 0;
    if (small_int(id, x))
        return 1;
    *x = PyLong_AsLongLongAndOverflow(id, &over);
    return !over;
}

static void pick_free(Pick *p) {
    for (Py_ssize_t k = 0; p->ids && k < p->held; k++)
        Py_XDECREF(p->ids[k]);
    PyMem_Free(p->ids);
    PyMem_Free(p->again);
    PyMem_Free(p->slots);
    Py_XDECREF(p->enter_ids);
    Py_XDECREF(p->enter_ents);
}

/* p made for the view's relevant ids (all zeroed before); -1 on an error, with p->slow set
 * if an id is not a C number. */
static int pick_begin(Pick *p, PyObject *relevant) {
    Py_ssize_t n = PyDict_GET_SIZE(relevant), i = 0, k = 0;
    p->ids = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    p->again = PyMem_Calloc((size_t)(n ? n : 1), 1);
    p->enter_ids = PyList_New(0);
    p->enter_ents = PyList_New(0);
    if (!p->ids || !p->again) {
        PyErr_NoMemory();
        return -1;
    }
    if (!p->enter_ids || !p->enter_ents || pick_grow(p, n + 64))
        return -1;
    for (int w = WARM; w == WARM;) {
        PyObject *ids[WARM];
        w = next_keys(relevant, &i, n - k, ids, NULL);
        for (int j = 0; j < w; j++) {
            long long x;
            if (!pick_number(ids[j], &x)) {
                p->slow = 1;
                return -1;
            }
            Slot *slot = pick_slot(p, x);
            slot->id = x;
            slot->at = k;
            p->ids[k++] = Py_NewRef(ids[j]);
            p->held = k;
        }
    }
    p->used = p->held;
    return 0;
}

/* The entity of id x found in the area: a relevant one marked found again, another kept as
 * entering (a second find of it keeps its place, with this entity). Its id and entity are id
 * and ent, or, when id is NULL, read from the bucket (packed entity e) only if it enters. */
static int pick_found(Pick *p, long long x, PyObject *id, PyObject *ent, PyObject *bucket,
                      const PackedId *e) {
    Slot *slot = pick_slot(p, x);
    if (slot->at >= 0 && slot->at < p->held) {
        p->kept += !p->again[slot->at];
        p->again[slot->at] = 1;
        return 0;
    }
    if (!id && packed_entry(bucket, e, &id, &ent))
        return -1;
    if (slot->at >= 0)
        return PyList_SetItem(p->enter_ents, slot->at - p->held, Py_NewRef(ent));
    slot->id = x;
    slot->at = p->held + PyList_GET_SIZE(p->enter_ids);
    if (PyList_Append(p->enter_ids, id) || PyList_Append(p->enter_ents, ent))
        return -1;
    return ++p->used * 2 > (Py_ssize_t)p->mask ? pick_grow(p, p->used) : 0;
}

/* One entity found in the area, by its id and entity (pick_found). */
static int pick_put(Pick *p, PyObject *id, PyObject *ent) {
    long long x;
    if (p->slow)
        return 0;
    if (!pick_number(id, &x)) {
        p->slow = 1;
        return 0;
    }
    return pick_found(p, x, id, ent, NULL, NULL);
}

/* The ids found that were not relevant enter (in found order), then the relevant ones not
 * found again leave (in the view's order of relevant), as aim_apply records them. */
static int pick_apply(const View *v, Pick *p) {
    if (PyDict_GET_SIZE(v->relevant) != p->held) {
        PyErr_SetString(PyExc_RuntimeError, "the relevant entities changed while read");
        return -1;
    }
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p->enter_ids); j++)
        if (aim_set(v, PyList_GET_ITEM(p->enter_ids, j), PyList_GET_ITEM(p->enter_ents, j)))
            return -1;
    for (Py_ssize_t k = 0; p->kept < p->held && k < p->held; k++)
        if (!p->again[k] && aim_set(v, p->ids[k], NULL))
            return -1;
    return 0;
}

/* Where aim puts what the view's area holds: into a dict (found), or against the view's
 * relevant ids (pick). */
typedef struct {
    PyObject *found;
    Pick *pick;
} Sink;

static int sink_put(Sink *s, PyObject *id, PyObject *ent) {
    return s->found ? PyDict_SetItem(s->found, id, ent) : pick_put(s->pick, id, ent);
}

/* A packed entity e of bucket into the sink: by its C id into a pick, which reads its id and
 * entity only if it enters (an id that is no C number makes the pick give up). */
static int sink_packed(Sink *s, PyObject *bucket, const PackedId *e) {
    if (!s->found) {
        if (s->pick->slow || e->at < 0) {
            s->pick->slow = 1;
            return 0;
        }
        return pick_found(s->pick, e->id, NULL, NULL, bucket, e);
    }
    PyObject *id, *ent;
    return packed_entry(bucket, e, &id, &ent) || PyDict_SetItem(s->found, id, ent) ? -1 : 0;
}

/* A whole bucket's entities, in its order. */
static int sink_bucket(Sink *s, PyObject *bucket) {
    if (s->found)
        return PyDict_Update(s->found, bucket);
    Py_ssize_t i = 0, n = PyDict_GET_SIZE(bucket);
    PyObject *id, *ent;
    while (PyDict_Next(bucket, &i, &id, &ent))
        if (pick_put(s->pick, id, ent))
            return -1;
    if (PyDict_GET_SIZE(bucket) != n) {
        PyErr_SetString(PyExc_RuntimeError, "a cell's entities changed while it was read");
        return -1;
    }
    return 0;
}

/* The entities of a packed cell into the sink, in its order: all (swept 0), or those within r2
 * (squared) of c. */
static int sweep_packed(PyObject *packed, int swept, const double *c, Py_ssize_t dims,
                        double r2, Sink *found) {
    PyObject *bucket = PyTuple_GET_ITEM(packed, 0), *ids = PyTuple_GET_ITEM(packed, 1);
    const PackedId *e = (const PackedId *)PyBytes_AS_STRING(ids);
    Py_ssize_t n = PyBytes_GET_SIZE(ids) / (Py_ssize_t)sizeof(PackedId);
    const double *xs = swept ? (const double *)PyBytes_AS_STRING(PyTuple_GET_ITEM(packed, 2)) : c;
    for (Py_ssize_t k = 0; k < n; k++, xs += swept ? dims : 0) {
        double apart = 0.0;
        for (Py_ssize_t d = 0; swept && d < dims; d++) {
            double dx = xs[d] - c[d], sq = dx * dx;
            apart = d ? apart + sq : sq;
        }
        if ((!swept || apart <= r2) && sink_packed(found, bucket, &e[k]))
            return -1;
    }
    return 0;
}

/* One watched cell's entities into found: the whole bucket for a block of cells (ball 0) or
 * a cell wholly inside the radius, else those within it; its size added to tests. */
static int aim_cell(PyObject *cell, PyObject *grid, PyObject *pos, PyObject *memo,
                    const double *c, Py_ssize_t dims, int ball, double size, double r2,
                    Sink *found, Py_ssize_t *tests) {
    int truth = PyObject_IsTrue(cell);
    if (truth <= 0)
        return truth; /* the cell of no position: its entities are already in */
    PyObject *bucket = PyDict_GetItemWithError(grid, cell);
    if (!bucket)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyDict_Check(bucket)) {
        PyErr_SetString(PyExc_TypeError, "a cell's entities must be a dict");
        return -1;
    }
    if (!PyDict_GET_SIZE(bucket))
        return 0;
    Py_INCREF(bucket);
    *tests += PyDict_GET_SIZE(bucket);
    int inside = ball ? cell_inside(cell, c, dims, size, r2) : 1, rc = -1;
    if (inside > 0 && found->found) {
        rc = sink_bucket(found, bucket);
    } else if (inside >= 0) {
        PyObject *packed = packed_cell(memo, cell, bucket, pos, dims, !inside);
        rc = packed ? sweep_packed(packed, !inside, c, dims, r2, found) : -1;
    }
    Py_DECREF(bucket);
    return rc;
}

/* The entities of the view's area into the sink, in the pure one's order (those without a
 * position first, then cell by cell as watched iterates); the entities tested in tests. */
static int aim_found(PyObject *grid, PyObject *watched, PyObject *pos, PyObject *memo,
                     PyObject *centre, PyObject *radius, double size, Sink *found,
                     Py_ssize_t *tests) {
    PyObject *everywhere = PyDict_GetItemWithError(grid, g_everywhere);
    if (!everywhere) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, g_everywhere);
        return -1;
    }
    if (!PyDict_Check(everywhere)) {
        PyErr_SetString(PyExc_TypeError, "a cell's entities must be a dict");
        return -1;
    }
    *tests = PyDict_GET_SIZE(everywhere);
    Py_INCREF(everywhere);
    int rc = sink_bucket(found, everywhere);
    Py_DECREF(everywhere);
    if (rc || centre == Py_None)
        return rc;
    double c[3], r2 = 0.0;
    Py_ssize_t dims;
    int ball = radius != Py_None;
    if (read_centre(centre, c, &dims))
        return -1;
    if (ball) {
        double r = PyFloat_AsDouble(radius);
        if (r == -1.0 && PyErr_Occurred())
            return -1;
        r2 = r * r;
    }
    PyObject *it = PyObject_GetIter(watched), *cell;
    if (!it)
        return -1;
    while ((cell = PyIter_Next(it))) {
        rc = aim_cell(cell, grid, pos, memo, c, dims, ball, size, r2, found, tests);
        Py_DECREF(cell);
        if (rc)
            break;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* The entries of found that rule(entity, client) accepts, in its order; a new dict. */
static PyObject *aim_rule(PyObject *found, PyObject *rule, PyObject *client) {
    PyObject *kept = PyDict_New(), *id, *ent;
    Py_ssize_t i = 0;
    if (!kept)
        return NULL;
    while (PyDict_Next(found, &i, &id, &ent)) {
        Py_INCREF(id);
        Py_INCREF(ent);
        PyObject *yes = PyObject_CallFunctionObjArgs(rule, ent, client, NULL);
        int truth = yes ? PyObject_IsTrue(yes) : -1;
        Py_XDECREF(yes);
        int rc = truth < 0 ? -1 : truth ? PyDict_SetItem(kept, id, ent) : 0;
        Py_DECREF(id);
        Py_DECREF(ent);
        if (rc) {
            Py_DECREF(kept);
            return NULL;
        }
    }
    return kept;
}

/* The ids of the iterable ids still in entities into the sink. */
static int aim_always(Sink *found, PyObject *ids, PyObject *entities) {
    PyObject *it = PyObject_GetIter(ids), *id;
    if (!it)
        return -1;
    int rc = 0;
    while (!rc && (id = PyIter_Next(it))) {
        PyObject *ent = PyDict_GetItemWithError(entities, id);
        if (ent) {
            Py_INCREF(ent);
            rc = sink_put(found, id, ent);
            Py_DECREF(ent);
        } else if (PyErr_Occurred()) {
            rc = -1;
        }
        Py_DECREF(id);
    }
    Py_DECREF(it);
    return rc || PyErr_Occurred() ? -1 : 0;
}

/* The set of viewers of id in seen_by (a new reference), made if absent when make is set;
 * NULL with a KeyError if absent otherwise, or a TypeError if it is not a set. */
static PyObject *viewers(PyObject *seen_by, PyObject *id, int make) {
    PyObject *seen = PyDict_GetItemWithError(seen_by, id);
    if (seen) {
        if (PySet_Check(seen))
            return Py_NewRef(seen);
        PyErr_SetString(PyExc_TypeError, "an id's viewers must be a set");
        return NULL;
    }
    if (PyErr_Occurred())
        return NULL;
    if (!make) {
        PyErr_SetObject(PyExc_KeyError, id);
        return NULL;
    }
    seen = PySet_New(NULL);
    if (seen && PyDict_SetItem(seen_by, id, seen))
        Py_CLEAR(seen);
    return seen;
}

/* Whether id a is less than id b (ints compared as C numbers when they fit); -1 on an
 * error. */
static int id_less(PyObject *a, PyObject *b) {
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b)) {
        int oa, ob;
        long long x, y;
        if (small_int(a, &x) && small_int(b, &y))
            return x < y;
        x = PyLong_AsLongLongAndOverflow(a, &oa);
        y = PyLong_AsLongLongAndOverflow(b, &ob);
        if (!oa && !ob && !PyErr_Occurred())
            return x < y;
        if (PyErr_Occurred())
            return -1;
    }
    Py_INCREF(a);
    Py_INCREF(b);
    int less = PyObject_RichCompareBool(a, b, Py_LT);
    Py_DECREF(a);
    Py_DECREF(b);
    return less;
}

/* Where id goes in the ascending list order: the first item not less than it; -1 on an
 * error. */
static Py_ssize_t bisect_id(PyObject *order, PyObject *id) {
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(order);
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (mid >= PyList_GET_SIZE(order)) {
            PyErr_SetString(PyExc_RuntimeError, "a view's order changed while searched");
            return -1;
        }
        int less = id_less(PyList_GET_ITEM(order, mid), id);
        if (less < 0)
            return -1;
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* id into (in, set) or out of the ascending list order, as the pure one's insort and
 * _unorder. */
static int reorder(PyObject *order, PyObject *id, int in) {
    Py_ssize_t k = bisect_id(order, id);
    if (k < 0)
        return -1;
    if (in)
        return PyList_Insert(order, k, id);
    int missing = k >= PyList_GET_SIZE(order);
    if (!missing && (missing = id_less(id, PyList_GET_ITEM(order, k))) < 0)
        return -1;
    if (missing) {
        PyErr_Format(PyExc_RuntimeError, "id %R is missing from its view's order", id);
        return -1;
    }
    return PyList_SetSlice(order, k, k + 1, NULL);
}

/* id (entity ent) became relevant to the view v, or (ent NULL) stopped being: its records. */
static int aim_set(const View *v, PyObject *id, PyObject *ent) {
    if (!PyDict_SetDefault(v->changes, id, ent ? Py_False : Py_True))
        return -1;
    if (ent ? PyDict_SetItem(v->relevant, id, ent) : PyDict_DelItem(v->relevant, id))
        return -1;
    if (reorder(v->order, id, ent != NULL))
        return -1;
    PyObject *seen = viewers(v->seen_by, id, ent != NULL);
    if (!seen)
        return -1;
    int rc = ent ? PySet_Add(seen, v->client_id) : PySet_Discard(seen, v->client_id) < 0;
    if (!rc && !ent && !PySet_GET_SIZE(seen))
        rc = PyDict_DelItem(v->seen_by, id);
    Py_DECREF(seen);
    return rc;
}

/* The ids of found not yet relevant enter (in found's order), then the relevant ones not in
 * found leave (in relevant's order). Walks relevant in its order, which reads its memory
 * front to back, rather than looking each id found up in it: those it holds are taken out of
 * found, which keeps the entering ones. */
static int aim_apply(const View *v, PyObject *found) {
    PyObject *relevant = v->relevant, *leaving = PyList_New(0), *id, *ent;
    Py_ssize_t i = 0, held = PyDict_GET_SIZE(relevant);
    if (!leaving)
        return -1;
    while (PyDict_Next(relevant, &i, &id, &ent)) {
        int in = PyDict_Contains(found, id);
        if (in < 0 || (in ? PyDict_DelItem(found, id) : PyList_Append(leaving, id)))
            goto fail;
    }
    if (PyDict_GET_SIZE(relevant) != held) {
        PyErr_SetString(PyExc_RuntimeError, "the relevant entities changed while read");
        goto fail;
    }
    for (i = 0; PyDict_Next(found, &i, &id, &ent);) {
        Py_INCREF(id);
        Py_INCREF(ent);
        int rc = aim_set(v, id, ent);
        Py_DECREF(id);
        Py_DECREF(ent);
        if (rc)
            goto fail;
    }
    for (i = 0; i < PyList_GET_SIZE(leaving); i++)
        if (aim_set(v, PyList_GET_ITEM(leaving, i), NULL))
            goto fail;
    Py_DECREF(leaving);
    return 0;
fail:
    Py_DECREF(leaving);
    return -1;
}

/* aim without a rule, what is found taken against the view's relevant ids as it is found:
 * 1 done, 0 if an id is not a C number (nothing recorded: the caller takes the dict's way),
 * -1 on an error. */
static int aim_picked(const View *v, PyObject *grid, PyObject *watched, PyObject *pos,
                      PyObject *memo, PyObject *centre, PyObject *radius, double size,
                      PyObject *always, PyObject *own, PyObject *entities, Py_ssize_t *tests) {
    Pick p = {0};
    Sink sink = {NULL, &p};
    int rc = pick_begin(&p, v->relevant) ||
             aim_found(grid, watched, pos, memo, centre, radius, size, &sink, tests) ||
             aim_always(&sink, always, entities) || aim_always(&sink, own, entities);
    if (p.slow) {
        PyErr_Clear(); /* the dict's way meets any error again, as the pure one does */
        rc = 0;
    } else {
        rc = rc ? -1 : pick_apply(v, &p) ? -1 : 1;
    }
    pick_free(&p);
    return rc;
}

static PyObject *py_aim(PyObject *self, PyObject *args) {
    PyObject *view, *watched, *grid, *pos, *centre, *radius, *always, *own, *entities, *rule;
    PyObject *memo;
    double size;
    View v;
    if (!PyArg_ParseTuple(args, "OOO!O!OOdOOO!OO!", &view, &watched, &PyDict_Type, &grid,
                          &PyDict_Type, &pos, &centre, &radius, &size, &always, &own,
                          &PyDict_Type, &entities, &rule, &PyDict_Type, &memo) ||
        view_record(view, &v))
        return NULL;
    Py_ssize_t tests = 0;
    int rc = rule == Py_None ? aim_picked(&v, grid, watched, pos, memo, centre, radius, size,
                                          always, own, entities, &tests)
                             : 0;
    if (!rc) { /* a rule, or an id that is not a C number: a dict of all found */
        Sink sink = {PyDict_New(), NULL};
        rc = !sink.found ||
             aim_found(grid, watched, pos, memo, centre, radius, size, &sink, &tests);
        if (!rc && rule != Py_None)
            Py_SETREF(sink.found, aim_rule(sink.found, rule, v.client));
        rc = rc || !sink.found || aim_always(&sink, always, entities) ||
             aim_always(&sink, own, entities) || aim_apply(&v, sink.found);
        rc = rc ? -1 : 1;
        Py_XDECREF(sink.found);
    }
    Py_DECREF(v.client_id);
    return rc < 0 ? NULL : PyLong_FromSsize_t(tests);
}

/* ---- a view tested entity by entity (retest) -------------------------------------------- */

/* A retested view and what its test of one entity reads: its area, cells, positions, the ids
 * always relevant to it, and the count of tests made. */
typedef struct {
    View v;
    PyObject *watched, *pos, *cell_of, *always, *own;
    Py_ssize_t tests;
    int ball;        /* a radius (retest of such a view): the test is the distance from c */
    int centred;     /* with a centre (a radius without one holds no position) */
    double c[3], r2; /* the centre, the radius squared */
    Py_ssize_t dims; /* the centre's coordinates */
} Retested;

/* Whether id is relevant to the retested view now (its test, counted): 1, 0, or -1. */
static int relevant_now(Retested *b, PyObject *id) {
    b->tests++;
    int in = PySequence_Contains(b->always, id);
    if (!in)
        in = PySequence_Contains(b->own, id);
    if (in)
        return in;
    PyObject *point = PyDict_GetItemWithError(b->pos, id);
    if (!point || point == Py_None)
        return PyErr_Occurred() ? -1 : 1;
    if (b->ball) {
        double x[3], apart = 0.0;
        if (!b->centred)
            return 0;
        Py_INCREF(point);
        in = read_point(point, b->dims, x);
        Py_DECREF(point);
        if (in)
            return -1;
        for (Py_ssize_t d = 0; d < b->dims; d++) {
            double dx = x[d] - b->c[d], sq = dx * dx;
            apart = d ? apart + sq : sq;
        }
        return !(apart > b->r2); /* as Interest._test: a NaN is not beyond */
    }
    PyObject *cell = PyDict_GetItemWithError(b->cell_of, id);
    if (!cell) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, id);
        return -1;
    }
    Py_INCREF(cell);
    in = PySequence_Contains(b->watched, cell);
    Py_DECREF(cell);
    return in;
}

/* Record that id (entity ent) is relevant now or not, when that changed. */
static int note_relevance(Retested *b, PyObject *id, PyObject *ent, int now) {
    int was = PyDict_Contains(b->v.relevant, id);
    if (was < 0)
        return -1;
    if (was == now)
        return 0;
    return aim_set(&b->v, id, now ? ent : NULL);
}

/* Test and record id (entity ent), keeping both alive meanwhile. */
static int retest_one(Retested *b, PyObject *id, PyObject *ent) {
    Py_INCREF(id);
    Py_INCREF(ent);
    int now = relevant_now(b, id);
    int rc = now < 0 ? -1 : note_relevance(b, id, ent, now);
    Py_DECREF(id);
    Py_DECREF(ent);
    return rc;
}

/* ---- the touched entities of a block of cells that stayed (as _pyassemble.retest) ---------- */

/* What retest read of one touched entity of a cell, once an update (a row of a pack). */
typedef struct {
    long long rank;
    double x[3];
    int live;   /* its world is the retest's */
    int placed; /* its position's coordinates (2 or 3), 0 without one, -1 not read */
    int home;   /* its cell (cell_of) is the one whose pack holds it */
} Row;

typedef struct {
    long long rank;
    PyObject *id;    /* a new reference */
    const Row *row;  /* its row in a cell's pack, or NULL: looked up one by one */
    PyObject *ent;   /* with a row: its entity, borrowed from the pack */
} Touched;

/* The touched ids a retest found (each with its rank), in a growing array: what a set and
 * the rank looked up again cost before, for a view's five hundred ids or so. */
typedef struct {
    Touched *all;
    Py_ssize_t n, cap;
    PyObject *packs; /* the packs the rows are in, held until the retest ends */
} TouchedIds;

/* t's ids by rank, ascending: runs of 16 by insertion, then merged bottom-up through a
 * buffer of as many, the compares in line (qsort's call a compare and its copies were a
 * fifth of a retest's instructions). Equal ranks are one id found twice: their order is free. */
static int touched_sort(TouchedIds *t) {
    Touched *a = t->all, *b;
    Py_ssize_t n = t->n;
    for (Py_ssize_t lo = 0; lo < n; lo += 16) {
        Py_ssize_t hi = lo + 16 < n ? lo + 16 : n;
        for (Py_ssize_t i = lo + 1; i < hi; i++) {
            Touched x = a[i];
            Py_ssize_t j = i;
            for (; j > lo && a[j - 1].rank > x.rank; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    if (n <= 16)
        return 0;
    Touched *buf = PyMem_Malloc((size_t)n * sizeof(Touched));
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    b = buf;
    for (Py_ssize_t w = 16; w < n; w *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * w) {
            Py_ssize_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = a[j].rank < a[i].rank ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        Touched *swap = a;
        a = b;
        b = swap;
    }
    if (a != t->all)
        memcpy(t->all, a, (size_t)n * sizeof(Touched));
    PyMem_Free(buf);
    return 0;
}

static void touched_free(TouchedIds *t) {
    for (Py_ssize_t k = 0; k < t->n; k++)
        Py_DECREF(t->all[k].id);
    PyMem_Free(t->all);
    Py_XDECREF(t->packs);
}

/* Room in t for n more ids. */
static int touched_room(TouchedIds *t, Py_ssize_t n) {
    if (t->n + n <= t->cap)
        return 0;
    Py_ssize_t cap = t->cap ? 2 * t->cap : 256;
    while (cap < t->n + n)
        cap *= 2;
    Touched *all = PyMem_Realloc(t->all, (size_t)cap * sizeof(Touched));
    if (!all) {
        PyErr_NoMemory();
        return -1;
    }
    t->all = all;
    t->cap = cap;
    return 0;
}

/* id with its rank into t if rank holds it (a rank that is not an int: TypeError). */
static int touched_put(TouchedIds *t, PyObject *id, PyObject *rank) {
    PyObject *r = PyDict_GetItemWithError(rank, id);
    if (!r)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyLong_Check(r)) {
        PyErr_SetString(PyExc_TypeError, "a touched id's rank must be an int");
        return -1;
    }
    long long at;
    if (!small_int(r, &at))
        at = PyLong_AsLongLong(r);
    if (at == -1 && PyErr_Occurred())
        return -1;
    if (touched_room(t, 1))
        return -1;
    t->all[t->n++] = (Touched){at, Py_NewRef(id), NULL, NULL};
    return 0;
}

/* The keys of keys (a dict, or any iterable of ids) that rank holds into t. */
static int retest_ids(TouchedIds *t, PyObject *keys, PyObject *rank) {
    if (PyDict_CheckExact(keys)) {
        Py_ssize_t i = 0, n = PyDict_GET_SIZE(keys);
        PyObject *id, *value;
        while (PyDict_Next(keys, &i, &id, &value))
            if (touched_put(t, id, rank))
                return -1;
        if (PyDict_GET_SIZE(keys) != n) {
            PyErr_SetString(PyExc_RuntimeError, "a cell's entities changed while read");
            return -1;
        }
        return 0;
    }
    PyObject *it = PyObject_GetIter(keys), *id;
    if (!it)
        return -1;
    int rc = 0;
    while (!rc && (id = PyIter_Next(it))) {
        rc = touched_put(t, id, rank);
        Py_DECREF(id);
    }
    Py_DECREF(it);
    return rc || PyErr_Occurred() ? -1 : 0;
}

/* Whether t->all[k]'s id is one of those before it of the same rank (found twice: in a cell
 * and among the relevant): 1, 0, or -1. */
static int touched_again(const TouchedIds *t, Py_ssize_t k) {
    for (Py_ssize_t j = k - 1; j >= 0 && t->all[j].rank == t->all[k].rank; j--) {
        int same = PyObject_RichCompareBool(t->all[j].id, t->all[k].id, Py_EQ);
        if (same)
            return same;
    }
    return 0;
}


/* One row of a pack: the touched entity id (rank r) of the cell; 0, or 1 if the cell cannot be
 * packed (its errors are the one-by-one path's to raise, in its order). */
static int pack_row(PyObject *id, PyObject *r, PyObject *touched, PyObject *pos,
                    PyObject *world, PyObject *cell_of, PyObject *cell, Row *row,
                    PyObject **ent) {
    if (!PyLong_Check(r))
        return 1;
    if (!small_int(r, &row->rank) && (row->rank = PyLong_AsLongLong(r)) == -1 && PyErr_Occurred())
        return 1;
    *ent = PyDict_GetItemWithError(touched, id);
    if (!*ent)
        return 1;
    Py_INCREF(*ent);
    PyObject *dict = ent_dict(*ent), *owner = ent_hinted(*ent, dict, A_WORLD, s_world);
    Py_XDECREF(dict);
    row->live = owner == world;
    Py_XDECREF(owner);
    if (!owner)
        return 1;
    PyObject *p = PyDict_GetItemWithError(pos, id);
    Py_ssize_t n = !p ? 0 : PyTuple_CheckExact(p) ? PyTuple_GET_SIZE(p)
                          : PyList_CheckExact(p)  ? PyList_GET_SIZE(p)
                                                  : -1;
    row->placed = !p || p == Py_None ? 0 : n == 2 || n == 3 ? (int)n : -1;
    if (PyErr_Occurred())
        return 1;
    PyObject *home = PyDict_GetItemWithError(cell_of, id);
    Py_XINCREF(home);
    row->home = home ? PyObject_RichCompareBool(home, cell, Py_EQ) : 0;
    Py_XDECREF(home);
    if (row->home < 0 || PyErr_Occurred())
        return 1;
    if (row->placed > 0) {
        Py_INCREF(p);
        if (read_point(p, row->placed, row->x)) {
            PyErr_Clear(); /* read again, one by one, when tested */
            row->placed = -1;
        }
        Py_DECREF(p);
    }
    return 0;
}

/* What retest reads of a cell's touched entities, read once an update for the views that
 * watch it (memo[cell]): (ids, entities, rows), the bucket's ids that rank holds, in its
 * order, their entities in touched and a Row each in a bytes object; None when the cell
 * cannot be packed (its ids are then looked up one by one, each view raising what that
 * meets). A new reference, or NULL with an error set. */
static PyObject *pack_touched(PyObject *bucket, PyObject *cell, PyObject *touched,
                              PyObject *rank, PyObject *pos, PyObject *cell_of,
                              PyObject *world) {
    Py_ssize_t n = PyDict_GET_SIZE(bucket), i = 0, k = 0;
    PyObject *ids = PyList_New(0), *ents = PyList_New(0), *out = NULL;
    PyObject *rows = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(Row));
    PyObject *id, *value;
    int unfit = 0;
    if (!ids || !ents || !rows)
        goto done;
    Row *all = (Row *)PyBytes_AS_STRING(rows);
    while (!unfit && PyDict_Next(bucket, &i, &id, &value)) {
        PyObject *r = PyDict_GetItemWithError(rank, id), *ent = NULL;
        if (!r) {
            unfit = PyErr_Occurred() != NULL;
            continue;
        }
        Py_INCREF(id);
        unfit = pack_row(id, r, touched, pos, world, cell_of, cell, &all[k], &ent) ||
                PyList_Append(ids, id) || PyList_Append(ents, ent);
        Py_DECREF(id);
        Py_XDECREF(ent);
        k++;
    }
    if (unfit || PyDict_GET_SIZE(bucket) != n) {
        PyErr_Clear();
        out = Py_NewRef(Py_None);
        goto done;
    }
    if (_PyBytes_Resize(&rows, k * (Py_ssize_t)sizeof(Row)))
        goto done;
    PyObject *id_tuple = PyList_AsTuple(ids), *ent_tuple = PyList_AsTuple(ents);
    if (id_tuple && ent_tuple)
        out = PyTuple_Pack(3, id_tuple, ent_tuple, rows);
    Py_XDECREF(id_tuple);
    Py_XDECREF(ent_tuple);
done:
    Py_XDECREF(ids);
    Py_XDECREF(ents);
    Py_XDECREF(rows);
    return out;
}

/* The touched ids of a watched cell's bucket into t: from its pack in memo (made the first
 * time), or looked up one by one when it has none. */
static int retest_cell(TouchedIds *t, PyObject *bucket, PyObject *cell, PyObject *memo,
                       PyObject *touched, PyObject *rank, const Retested *b, PyObject *world) {
    if (memo == Py_None || !PyDict_CheckExact(bucket))
        return retest_ids(t, bucket, rank);
    PyObject *packed = PyDict_GetItemWithError(memo, cell);
    if (packed) {
        Py_INCREF(packed);
    } else {
        if (PyErr_Occurred() ||
            !(packed = pack_touched(bucket, cell, touched, rank, b->pos, b->cell_of, world)))
            return -1;
        if (PyDict_SetItem(memo, cell, packed)) {
            Py_DECREF(packed);
            return -1;
        }
    }
    PyObject *ids, *ents, *rows;
    if (packed == Py_None) {
        Py_DECREF(packed);
        return retest_ids(t, bucket, rank);
    }
    if (!PyTuple_CheckExact(packed) || PyTuple_GET_SIZE(packed) != 3 ||
        !PyTuple_CheckExact(ids = PyTuple_GET_ITEM(packed, 0)) ||
        !PyTuple_CheckExact(ents = PyTuple_GET_ITEM(packed, 1)) ||
        !PyBytes_CheckExact(rows = PyTuple_GET_ITEM(packed, 2)) ||
        PyTuple_GET_SIZE(ents) != PyTuple_GET_SIZE(ids) ||
        PyBytes_GET_SIZE(rows) != PyTuple_GET_SIZE(ids) * (Py_ssize_t)sizeof(Row)) {
        Py_DECREF(packed);
        PyErr_SetString(PyExc_TypeError, "a memo of cells holds what retest read of them");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(ids);
    int rc = (!t->packs && !(t->packs = PyList_New(0))) || PyList_Append(t->packs, packed) ||
             touched_room(t, n);
    Py_DECREF(packed);
    if (rc)
        return -1;
    const Row *row = (const Row *)PyBytes_AS_STRING(rows);
    for (Py_ssize_t k = 0; k < n; k++)
        t->all[t->n++] = (Touched){row[k].rank, Py_NewRef(PyTuple_GET_ITEM(ids, k)), &row[k],
                                   PyTuple_GET_ITEM(ents, k)};
    return 0;
}

/* relevant_now of a packed row: its position as read once, when it has the view's coordinates;
 * of a block of cells, without a position or in the watched cell whose pack holds it. */
static int row_test(Retested *b, PyObject *id, const Row *row) {
    int cells = !b->ball && (!row->placed || row->home);
    if (!cells && (!b->ball || row->placed < 0 ||
                   (row->placed && b->centred && row->placed != b->dims)))
        return relevant_now(b, id);
    b->tests++;
    int in = PySequence_Contains(b->always, id);
    if (!in)
        in = PySequence_Contains(b->own, id);
    if (in || cells || !row->placed)
        return in < 0 ? in : 1;
    if (!b->centred)
        return 0;
    double apart = 0.0;
    for (Py_ssize_t d = 0; d < b->dims; d++) {
        double dx = row->x[d] - b->c[d], sq = dx * dx;
        apart = d ? apart + sq : sq;
    }
    return !(apart > b->r2);
}

/* Test and record the ids found (in the order of their ranks, each once) still of world. */
static int retest_apply(Retested *b, TouchedIds *t, PyObject *touched, PyObject *world) {
    int rc = touched_sort(t);
    for (Py_ssize_t j = 0; !rc && j < t->n; j++) {
        int again = touched_again(t, j);
        if (again)
            rc = again < 0 ? -1 : 0;
        if (again)
            continue;
        const Row *row = t->all[j].row;
        if (row) {
            if (!row->live)
                continue;
            PyObject *id = Py_NewRef(t->all[j].id), *ent = Py_NewRef(t->all[j].ent);
            int now = row_test(b, id, row);
            rc = now < 0 ? -1 : note_relevance(b, id, ent, now);
            Py_DECREF(id);
            Py_DECREF(ent);
            continue;
        }
        PyObject *ent = PyDict_GetItemWithError(touched, t->all[j].id);
        if (!ent) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, t->all[j].id);
            rc = -1;
            break;
        }
        Py_INCREF(ent);
        PyObject *dict = ent_dict(ent), *owner = ent_hinted(ent, dict, A_WORLD, s_world);
        Py_XDECREF(dict);
        rc = !owner ? -1 : owner == world ? retest_one(b, t->all[j].id, ent) : 0;
        Py_XDECREF(owner);
        Py_DECREF(ent);
    }
    return rc;
}

/* The area a retest tests positions against: the watched cells (radius None), or the
 * distance from centre (None: no position within it); -1 with an exception set if the
 * centre or radius is not one. */
static int retest_area(Retested *b, PyObject *centre, PyObject *radius) {
    if (radius == Py_None)
        return 0;
    double r = PyFloat_AsDouble(radius);
    if (r == -1.0 && PyErr_Occurred())
        return -1;
    b->ball = 1;
    b->r2 = r * r;
    b->centred = centre != Py_None;
    return b->centred ? read_centre(centre, b->c, &b->dims) : 0;
}

static PyObject *py_retest(PyObject *self, PyObject *args) {
    Retested b = {0};
    PyObject *view, *grid, *touched, *rank, *world, *centre, *radius, *memo;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!O!OOOOOO", &view, &b.watched, &PyDict_Type, &grid,
                          &PyDict_Type, &touched, &PyDict_Type, &rank, &PyDict_Type, &b.pos,
                          &PyDict_Type, &b.cell_of, &b.always, &b.own, &world, &centre,
                          &radius, &memo) ||
        view_record(view, &b.v))
        return NULL;
    if (memo != Py_None && !PyDict_Check(memo)) {
        Py_DECREF(b.v.client_id);
        PyErr_SetString(PyExc_TypeError, "a retest's memo must be a dict or None");
        return NULL;
    }
    if (retest_area(&b, centre, radius)) {
        Py_DECREF(b.v.client_id);
        return NULL;
    }
    TouchedIds ids = {0};
    PyObject *it = PyObject_GetIter(b.watched), *cell;
    int rc = !it;
    while (!rc && (cell = PyIter_Next(it))) {
        PyObject *bucket = PyDict_GetItemWithError(grid, cell);
        Py_XINCREF(bucket);
        rc = bucket ? retest_cell(&ids, bucket, cell, memo, touched, rank, &b, world)
                    : PyErr_Occurred() != NULL;
        Py_DECREF(cell);
        Py_XDECREF(bucket);
    }
    Py_XDECREF(it);
    rc = rc || PyErr_Occurred() || retest_ids(&ids, b.v.relevant, rank) ||
         retest_apply(&b, &ids, touched, world);
    touched_free(&ids);
    Py_DECREF(b.v.client_id);
    return rc ? NULL : PyLong_FromSsize_t(b.tests);
}

/* ---- the interest's grid: placing the entities whose position was written ----------------- */

static PyObject *g_floor; /* math.floor, for positions that are not floats */

/* The cell coordinate of x (item d of a position) in cells of `size`: in *out, as
 * math.floor(x / size) gives it, for a float; 1 if x is not a float (or the quotient is not
 * an integral double of at most 2^53), 0 if done. */
static int fast_coord(PyObject *x, double size, double *out) {
    if (!PyFloat_CheckExact(x))
        return 1;
    double q = floor(PyFloat_AS_DOUBLE(x) / size);
    if (!(q > -9007199254740992.0 && q < 9007199254740992.0))
        return 1; /* not finite, or past what a long long compares exactly */
    *out = q;
    return 0;
}

/* The cell of a position as _pyassemble.moves makes it: each coordinate math.floor(x / size),
 * or, when one is not finite (ValueError, OverflowError), cell(tuple(point)). A new tuple. */
static PyObject *cell_slow(PyObject *point, int dims, PyObject *size_o, PyObject *cell) {
    PyObject *at = PyTuple_New(dims);
    if (!at)
        return NULL;
    for (int d = 0; d < dims; d++) {
        PyObject *k = PyLong_FromLong(d), *x = k ? PyObject_GetItem(point, k) : NULL;
        Py_XDECREF(k);
        PyObject *q = x ? PyNumber_TrueDivide(x, size_o) : NULL;
        Py_XDECREF(x);
        PyObject *c = q ? PyObject_CallOneArg(g_floor, q) : NULL;
        Py_XDECREF(q);
        if (!c) {
            Py_DECREF(at);
            if (!PyErr_ExceptionMatches(PyExc_ValueError) &&
                !PyErr_ExceptionMatches(PyExc_OverflowError))
                return NULL;
            PyErr_Clear();
            PyObject *whole = PySequence_Tuple(point);
            if (!whole)
                return NULL;
            PyObject *got = PyObject_CallOneArg(cell, whole);
            Py_DECREF(whole);
            return got;
        }
        PyTuple_SET_ITEM(at, d, c);
    }
    return at;
}

/* Whether old (a cell, or NULL) is the cell of the coordinates q, when that is quick to tell
 * (a tuple of ints or of another length, or none): 1 yes, 0 no, 2 not told (compare the
 * tuples), -1 error. */
static int same_cell(PyObject *old, const double *q, int dims) {
    if (!old)
        return 0;
    if (!PyTuple_CheckExact(old))
        return 2;
    if (PyTuple_GET_SIZE(old) != dims)
        return 0;
    for (int d = 0; d < dims; d++) {
        PyObject *k = PyTuple_GET_ITEM(old, d);
        if (!PyLong_CheckExact(k))
            return 2;
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow || (double)v != q[d])
            return 0;
    }
    return 1;
}

/* The cell of the coordinates q: a new tuple of ints. */
static PyObject *cell_tuple(const double *q, int dims) {
    PyObject *at = PyTuple_New(dims);
    for (int d = 0; at && d < dims; d++) {
        PyObject *c = PyLong_FromDouble(q[d]);
        if (!c)
            Py_CLEAR(at);
        else
            PyTuple_SET_ITEM(at, d, c);
    }
    return at;
}

/* One dirty entity whose position (point) was written: into pos and touched, and into its
 * new cell's bucket if it left its own. 1 if it changed cells, 0 if not, -1 on error. */
static int move_one(PyObject *ent, PyObject *id, PyObject *point, int dims, double size,
                    PyObject *size_o, PyObject *cell, PyObject *grid, PyObject *cell_of,
                    PyObject *pos, PyObject *touched) {
    double q[3];
    int slow = !(PyTuple_CheckExact(point) || PyList_CheckExact(point)) ||
               PySequence_Fast_GET_SIZE(point) < dims;
    for (int d = 0; d < dims && !slow; d++)
        slow = fast_coord(PySequence_Fast_GET_ITEM(point, d), size, &q[d]);
    PyObject *at = NULL;
    if (slow && !(at = cell_slow(point, dims, size_o, cell)))
        return -1;
    int rc = -1;
    if (PyDict_SetItem(pos, id, point) || PyDict_SetItem(touched, id, ent))
        goto done;
    PyObject *old = PyDict_GetItemWithError(cell_of, id);
    if (!old && PyErr_Occurred())
        goto done;
    int same = at ? 2 : same_cell(old, q, dims);
    if (same < 0)
        goto done;
    if (same != 1 && !at && !(at = cell_tuple(q, dims)))
        goto done;
    if (same == 2 && old) { /* old != at, as the pure one compares them */
        int differ = PyObject_RichCompareBool(old, at, Py_NE);
        if (differ < 0)
            goto done;
        same = !differ;
    }
    if (same == 1) {
        rc = 0;
        goto done;
    }
    if (old) {
        Py_INCREF(old);
        PyObject *bucket = PyObject_GetItem(grid, old);
        int bad = !bucket || PyObject_DelItem(bucket, id);
        if (!bad && PyObject_Length(bucket) == 0)
            bad = PyObject_DelItem(grid, old);
        else if (!bad && PyErr_Occurred())
            bad = 1;
        Py_XDECREF(bucket);
        Py_DECREF(old);
        if (bad)
            goto done;
    }
    PyObject *bucket = PyDict_GetItemWithError(grid, at);
    if (!bucket) {
        if (PyErr_Occurred())
            goto done;
        PyObject *fresh = PyDict_New();
        if (!fresh || PyDict_SetItem(grid, at, fresh)) {
            Py_XDECREF(fresh);
            goto done;
        }
        Py_DECREF(fresh);
        bucket = PyDict_GetItemWithError(grid, at);
        if (!bucket)
            goto done;
    }
    Py_INCREF(bucket);
    int bad = PyObject_SetItem(bucket, id, ent) || PyDict_SetItem(cell_of, id, at);
    Py_DECREF(bucket);
    rc = bad ? -1 : 1;
done:
    Py_XDECREF(at);
    return rc;
}

/* Whether bit index of the int mask is set (as mask >> index & 1): 1, 0, or -1 with an
 * error. Below bit 64 it is a bit of the low word, two's complement for a negative int as
 * Python shifts one. */
static int bit_set(PyObject *mask, Py_ssize_t index) {
    if (PyLong_Check(mask) && index < 64) {
        uint64_t low = PyLong_AsUnsignedLongLongMask(mask);
        if (low == (uint64_t)-1 && PyErr_Occurred())
            return -1;
        return (int)(low >> index & 1);
    }
    PyObject *k = PyLong_FromSsize_t(index), *shifted = k ? PyNumber_Rshift(mask, k) : NULL;
    Py_XDECREF(k);
    PyObject *one = PyLong_FromLong(1), *bit = one && shifted ? PyNumber_And(shifted, one) : NULL;
    Py_XDECREF(one);
    Py_XDECREF(shifted);
    int set = bit ? PyObject_IsTrue(bit) : -1;
    Py_XDECREF(bit);
    return set;
}

/* What warm_moves found of a dirty entity in its __dict__ (new references): its dirty mask,
 * values and id, for moves_one to take instead of looking them up again (nothing moves runs
 * writes an entity's attributes). ent NULL: nothing kept (moves_one looks all up itself). */
typedef struct {
    PyObject *ent, *mask, *vals, *id;
} Mover;

#define MOVE_RING (2 * WARM) /* warm_moves fills the window after the next: two are known */

static void mover_clear(Mover *m) {
    Py_CLEAR(m->ent);
    Py_CLEAR(m->mask);
    Py_CLEAR(m->vals);
    Py_CLEAR(m->id);
}

/* One dirty entity, as _pyassemble.moves's loop body: 1 if it changed cells, 0 if not. pre:
 * what warm_moves found of it, or NULL. */
static int moves_one(PyObject *world, PyObject *ent, const Mover *pre, PyObject *where, int dims,
                     double size, PyObject *size_o, int rule, PyObject *cell, PyObject *grid,
                     PyObject *cell_of, PyObject *pos, PyObject *touched) {
    PyObject *dict = ent_dict(ent);
    PyObject *owner = ent_hinted(ent, dict, A_WORLD, s_world), *layout = NULL, *id = NULL;
    PyObject *mask = NULL, *vals = NULL, *point = NULL;
    int rc = -1;
    if (!owner)
        goto done;
    if (owner != world) {
        rc = 0;
        goto done;
    }
    layout = ent_hinted(ent, dict, A_LAYOUT, s_layout);
    if (!layout)
        goto done;
    PyObject *index_o = PyDict_GetItemWithError(where, layout); /* borrowed */
    Py_ssize_t index = -1;
    if (index_o) {
        index = PyLong_AsSsize_t(index_o);
        if (index == -1 && PyErr_Occurred())
            goto done;
    } else if (PyErr_Occurred()) {
        goto done;
    }
    int written = 0;
    if (index >= 0) {
        mask = pre ? Py_NewRef(pre->mask) : ent_hinted(ent, dict, A_DIRTY, s_dirty);
        if (!mask || (written = bit_set(mask, index)) < 0)
            goto done;
    }
    id = pre ? Py_NewRef(pre->id) : ent_hinted(ent, dict, A_NET_ID, s_net_id);
    if (!id)
        goto done;
    if (!written) {
        rc = rule ? (PyObject_SetItem(touched, id, ent) ? -1 : 0) : 0;
        goto done;
    }
    vals = pre ? Py_NewRef(pre->vals) : ent_hinted(ent, dict, A_VALS, s_vals);
    point = vals ? PySequence_GetItem(vals, index) : NULL;
    if (!point)
        goto done;
    rc = move_one(ent, id, point, dims, size, size_o, cell, grid, cell_of, pos, touched);
done:
    Py_XDECREF(dict);
    Py_XDECREF(owner);
    Py_XDECREF(layout);
    Py_XDECREF(id);
    Py_XDECREF(mask);
    Py_XDECREF(vals);
    Py_XDECREF(point);
    return rc;
}

/* Warm the dirty entities from `from`, `windows` windows of WARM (as warm() does a walk's):
 * their dicts, then their dirty masks and lists of values, then those values (a position is
 * one of the first) and the cell and position each had, then the coordinates of these
 * positions and cells; what it found of each in its __dict__ is
 * kept in ring[j % MOVE_RING]. It only reads; a lookup that fails is left for moves_one to
 * meet and report. */
static void warm_moves(PyObject *dirty, Py_ssize_t from, int windows, PyObject *cell_of,
                       PyObject *pos, Mover *ring) {
    PyObject *ent[2 * WARM], *vals[2 * WARM], *val[2 * WARM * (WARM_VALUES + 2)], *ids[2 * WARM];
    int n = 0, v = 0, u = 0, c = 0;
    Py_ssize_t to = PyList_GET_SIZE(dirty);
    if (to > from + windows * WARM)
        to = from + windows * WARM;
    for (Py_ssize_t j = from; j < to; j++) {
        mover_clear(&ring[j % MOVE_RING]);
        ent[n] = PyList_GET_ITEM(dirty, j);
        PREFETCH(ent[n]);
        n++;
    }
    for (int i = 0; i < n; i++) {
        PyObject *dict = ent_dict(ent[i]);
        if (!dict)
            continue;
        PREFETCH(dict);
        PyObject *mask = dict_item(dict, A_DIRTY, s_dirty);
        PyObject *b = mask ? dict_item(dict, A_VALS, s_vals) : NULL;
        PyObject *id = b ? dict_item(dict, A_NET_ID, s_net_id) : NULL;
        if (id) {
            Mover *m = &ring[(from + i) % MOVE_RING];
            m->ent = Py_NewRef(ent[i]);
            m->mask = Py_NewRef(mask);
            m->vals = Py_NewRef(b);
            m->id = Py_NewRef(id);
        }
        Py_DECREF(dict);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return;
        }
        if (mask)
            PREFETCH(mask);
        if (b && PyList_CheckExact(b)) {
            PREFETCH(b);
            vals[v++] = b;
        }
        if (id && PyLong_CheckExact(id))
            ids[c++] = id;
    }
    for (int i = 0; i < v; i++)
        PREFETCH(((PyListObject *)vals[i])->ob_item);
    /* the cell each is in (a tuple of ints), which moves_one compares with its new one, and
     * the position it had, which moves_one's store of the new one releases (that release's
     * miss was a third of moves) */
    for (int i = 0; i < c; i++) {
        PyObject *maps[2] = {cell_of, pos};
        for (int k = 0; k < 2; k++) {
            PyObject *old = PyDict_GetItemWithError(maps[k], ids[i]);
            if (!old) {
                PyErr_Clear();
                continue;
            }
            PREFETCH(old);
            val[u++] = old;
        }
    }
    for (int i = 0; i < v; i++)
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(vals[i]) && j < WARM_VALUES; j++) {
            val[u] = PyList_GET_ITEM(vals[i], j);
            PREFETCH(val[u]);
            u++;
        }
    for (int i = 0; i < u; i++)
        if (PyTuple_CheckExact(val[i]))
            for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(val[i]) && d < 3; d++)
                PREFETCH(PyTuple_GET_ITEM(val[i], d));
}

static PyObject *py_moves(PyObject *self, PyObject *args) {
    PyObject *world, *dirty, *where, *grid, *cell_of, *pos, *touched, *size_o, *cell;
    int flat, rule;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!O!O!O!ppO", &world, &PyList_Type, &dirty, &PyDict_Type,
                          &where, &PyDict_Type, &grid, &PyDict_Type, &cell_of, &PyDict_Type, &pos,
                          &PyDict_Type, &touched, &PyFloat_Type, &size_o, &flat, &rule, &cell))
        return NULL;
    double size = PyFloat_AS_DOUBLE(size_o);
    long moved = 0;
    int rc = 0;
    Mover ring[MOVE_RING] = {{0}};
    Py_INCREF(dirty);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(dirty) && rc >= 0; k++) {
        if (k % WARM == 0)
            warm_moves(dirty, k ? k + WARM : 0, k ? 1 : 2, cell_of, pos, ring);
        PyObject *ent = Py_NewRef(PyList_GET_ITEM(dirty, k));
        const Mover *pre = ring[k % MOVE_RING].ent == ent ? &ring[k % MOVE_RING] : NULL;
        rc = moves_one(world, ent, pre, where, flat ? 2 : 3, size, size_o, rule, cell, grid,
                       cell_of, pos, touched);
        Py_DECREF(ent);
        moved += rc > 0;
    }
    for (int k = 0; k < MOVE_RING; k++)
        mover_clear(&ring[k]);
    Py_DECREF(dirty);
    return rc < 0 ? NULL : PyLong_FromLong(moved);
}

/* ---- a budget's ranking (as _pyassemble.rank) ----------------------------------------- */

typedef struct {
    double urgency; /* priority(importance, waited): higher first */
    long long net_id;
    PyObject *id; /* borrowed from ids */
} Ranked;

static int ranked_cmp(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->urgency != y->urgency)
        return x->urgency > y->urgency ? -1 : 1;
    return (x->net_id > y->net_id) - (x->net_id < y->net_id);
}

/* A long long from an int, -1 with an exception set when it is not one or does not fit. */
static int as_ll(PyObject *o, long long *out) {
    *out = PyLong_AsLongLong(o);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* Item k of a pair (a tuple or list of at least two), borrowed; NULL with an error if not. */
static PyObject *pair_item(PyObject *pair, Py_ssize_t k) {
    if ((PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) >= 2))
        return PyTuple_GET_ITEM(pair, k);
    if (PyList_Check(pair) && PyList_GET_SIZE(pair) >= 2)
        return PyList_GET_ITEM(pair, k);
    PyErr_SetString(PyExc_TypeError, "expected a pair of ticks");
    return NULL;
}

/* Whether a despawned id was held at base: one of its spans (born, gone) holds it. */
static int span_holds(PyObject *spans, long long base) {
    PyObject *fast = PySequence_Fast(spans, "despawn spans must be a sequence");
    if (!fast)
        return -1;
    int held = 0;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fast) && !held; k++) {
        PyObject *span = PySequence_Fast_GET_ITEM(fast, k);
        PyObject *a = pair_item(span, 0), *b = a ? pair_item(span, 1) : NULL;
        long long born, gone;
        if (!b || as_ll(a, &born) || as_ll(b, &gone)) {
            Py_DECREF(fast);
            return -1;
        }
        held = born <= base && base < gone;
    }
    Py_DECREF(fast);
    return held;
}

static PyObject *g_dist; /* math.dist: the pure one's distance, to the last bit */

/* _budget.near_factor: the distance factor of the entity at id from the centre. */
static int near_factor(PyObject *near, PyObject *id, double *out) {
    PyObject *centre = PyTuple_GET_ITEM(near, 0), *pos = PyTuple_GET_ITEM(near, 1);
    *out = 1.0;
    if (centre == Py_None)
        return 0;
    if (!PyDict_Check(pos)) {
        PyErr_SetString(PyExc_TypeError, "positions must be a dict");
        return -1;
    }
    PyObject *point = PyDict_GetItemWithError(pos, id);
    if (!point)
        return PyErr_Occurred() ? -1 : 0;
    double cell = PyFloat_AsDouble(PyTuple_GET_ITEM(near, 2));
    if (cell == -1.0 && PyErr_Occurred())
        return -1;
    PyObject *args[2] = {point, centre};
    PyObject *d = PyObject_Vectorcall(g_dist, args, 2, NULL);
    if (!d)
        return -1;
    double distance = PyFloat_AsDouble(d);
    Py_DECREF(d);
    if (distance == -1.0 && PyErr_Occurred())
        return -1;
    double cells = isfinite(distance) ? distance / cell : FAR_CELLS;
    if (FAR_CELLS < cells)
        cells = FAR_CELLS;
    *out = 1.0 / (1.0 + cells);
    return 0;
}

/* The importance of a live entity's record for a client holding base (or since[id]); 0 when it
 * has none (nothing changed since what the client holds). -1: error. */
static int live_importance(PyObject *ent, PyObject *id, long long net_id, long long base,
                           PyObject *since, PyObject *hot, PyObject *entering, PyObject *weigh,
                           PyObject *near, PyObject **table, double *out) {
    int rc = -1, enters = entering == Py_None ? 0 : PySet_Contains(entering, id);
    PyObject *dict = NULL, *hist = NULL, *spawn_o = NULL, *layout = NULL;
    PyObject *mask = NULL;
    const Ring *ring = NULL;
    long long spawn = 0;
    if (enters < 0)
        return -1;
    if (!enters) {
        dict = ent_dict(ent);
        hist = ent_attr(ent, dict, s_hist);
        spawn_o = hist ? ent_attr(ent, dict, s_spawn) : NULL;
        if (!spawn_o || as_ll(spawn_o, &spawn))
            goto done;
        if (hist == Py_None) {
            if (!(ring = history_ring(world_table(table, ent, dict), ent, dict, net_id)))
                goto done;
        } else if (!PyList_Check(hist)) {
            PyErr_SetString(PyExc_TypeError, "entity history must be a list");
            goto done;
        }
    }
    if (enters || spawn > base) {
        *out = 2.0;
    } else {
        Py_ssize_t nh = ring ? ring->n : PyList_GET_SIZE(hist);
        long long newest, held = base;
        PyObject *held_o = PyDict_GetItemWithError(since, id);
        if (!held_o && PyErr_Occurred())
            goto done;
        if (held_o && as_ll(held_o, &held))
            goto done;
        if (nh && ring) {
            newest = ring_tick(ring, nh - 1);
            if (newest > held && !(mask = words_long(ring_mask(ring, nh - 1), ring->nw)))
                goto done;
        } else if (nh) {
            PyObject *m;
            if (entry_unpack(hist, nh - 1, &newest, &m))
                goto done;
            mask = Py_NewRef(m);
        }
        if (!nh || newest <= held) {
            rc = PyErr_Occurred() ? -1 : 0;
            *out = 0.0;
            goto done;
        }
        layout = ent_attr(ent, dict, s_layout);
        PyObject *hot_mask = layout ? PyDict_GetItemWithError(hot, layout) : NULL;
        if (!hot_mask) {
            if (layout && !PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, layout);
            goto done;
        }
        PyObject *both = PyNumber_And(mask, hot_mask);
        int is_hot = both ? PyObject_IsTrue(both) : -1;
        Py_XDECREF(both);
        if (is_hot < 0)
            goto done;
        *out = is_hot ? 2.0 : 1.0;
    }
    if (weigh != Py_None) {
        PyObject *w = PyObject_CallOneArg(weigh, ent);
        double value = w ? PyFloat_AsDouble(w) : -1.0;
        Py_XDECREF(w);
        if (value == -1.0 && PyErr_Occurred())
            goto done;
        *out *= value;
    }
    if (near != Py_None) {
        double factor;
        if (near_factor(near, id, &factor))
            goto done;
        *out *= factor;
    }
    rc = 1;
done:
    Py_XDECREF(dict);
    Py_XDECREF(hist);
    Py_XDECREF(spawn_o);
    Py_XDECREF(layout);
    Py_XDECREF(mask);
    return rc;
}

static PyObject *py_rank(PyObject *self, PyObject *args) {
    long long tick, base;
    PyObject *ids, *entities, *deleted, *prior, *since, *hot, *entering, *weigh, *near;
    if (!PyArg_ParseTuple(args, "LLO!O!O!O!O!O!OOO", &tick, &base, &PyList_Type, &ids,
                          &PyDict_Type, &entities, &PyDict_Type, &deleted, &PyDict_Type, &prior,
                          &PyDict_Type, &since, &PyDict_Type, &hot, &entering, &weigh, &near))
        return NULL;
    if (entering != Py_None && !PyAnySet_Check(entering)) {
        PyErr_SetString(PyExc_TypeError, "entering must be a set of ids or None");
        return NULL;
    }
    if (near != Py_None && (!PyTuple_Check(near) || PyTuple_GET_SIZE(near) != 3)) {
        PyErr_SetString(PyExc_TypeError, "near must be (centre, positions, cell) or None");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(ids), count = 0;
    Ranked *ranked = PyMem_Malloc(sizeof(Ranked) * (size_t)(n ? n : 1));
    if (!ranked)
        return PyErr_NoMemory();
    PyObject *out = NULL, *table = NULL;
    Py_INCREF(ids); /* its items stay borrowed while weigh or math.dist run Python */
    for (Py_ssize_t k = 0; k < n; k++) {
        warm_ahead(ids, k, entities, -1, NULL);
        PyObject *id = PyList_GET_ITEM(ids, k);
        long long net_id;
        if (as_ll(id, &net_id))
            goto done;
        PyObject *ent = PyDict_GetItemWithError(entities, id);
        PyObject *was = PyDict_GetItemWithError(prior, id);
        if (PyErr_Occurred())
            goto done;
        double importance;
        if (!ent) {
            if (!was) {
                PyObject *spans = PyDict_GetItemWithError(deleted, id);
                if (!spans) {
                    if (!PyErr_Occurred())
                        PyErr_SetObject(PyExc_KeyError, id);
                    goto done;
                }
                int held = span_holds(spans, base);
                if (held < 0)
                    goto done;
                if (!held)
                    continue; /* a despawn the client never held */
            }
            importance = 2.0;
        } else {
            Py_INCREF(ent);
            int has = live_importance(ent, id, net_id, base, since, hot, entering, weigh, near,
                                      &table, &importance);
            Py_DECREF(ent);
            if (has < 0)
                goto done;
            if (!has)
                continue;
            was = PyDict_GetItemWithError(prior, id); /* weigh may have changed it */
            if (!was && PyErr_Occurred())
                goto done;
        }
        long long waited = 0;
        if (was) {
            PyObject *began = pair_item(was, 1);
            long long t;
            if (!began || as_ll(began, &t))
                goto done;
            waited = tick - t;
        }
        ranked[count].urgency = importance * (double)(1 + waited);
        ranked[count].net_id = net_id;
        ranked[count].id = id;
        count++;
    }
    qsort(ranked, (size_t)count, sizeof(Ranked), ranked_cmp);
    out = PyList_New(count);
    if (!out)
        goto done;
    for (Py_ssize_t k = 0; k < count; k++)
        PyList_SET_ITEM(out, k, Py_NewRef(ranked[k].id));
done:
    Py_DECREF(ids);
    PyMem_Free(ranked);
    table_done(&table);
    return out;
}

/* ---- what a client's own section is made from, by an interest's view ---------------------- */

/* The relevance log's changes after base merged, the oldest change of an id winning (its
 * value: whether the id was relevant at base); a new dict. */
static PyObject *changes_since(PyObject *ticks, PyObject *log, long long base) {
    PyObject *was = PyDict_New();
    if (!was || !base)
        return was;
    for (Py_ssize_t k = PyList_GET_SIZE(ticks) - 1; k >= 0; k--) {
        long long t = PyLong_AsLongLong(PyList_GET_ITEM(ticks, k));
        if (t == -1 && PyErr_Occurred())
            goto fail;
        if (t <= base)
            break;
        if (PyDict_Update(was, PyList_GET_ITEM(log, k)))
            goto fail;
    }
    return was;
fail:
    Py_DECREF(was);
    return NULL;
}

/* An id and its value, for merged_ids. */
typedef struct {
    long long v;
    PyObject *id;
} IdValue;

static int id_value_cmp(const void *a, const void *b) {
    long long x = ((const IdValue *)a)->v, y = ((const IdValue *)b)->v;
    return (x > y) - (x < y);
}

/* The value of an exact int id that fits 64 bits: 1, else 0 (no error left set). */
static int plain_id(PyObject *id, long long *v) {
    int over;
    if (!PyLong_CheckExact(id))
        return 0;
    *v = PyLong_AsLongLongAndOverflow(id, &over);
    if (*v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return !over;
}

/* The ascending ids with leaving's keys (none of them among the ids) merged in at their
 * places: what sorting their concatenation gives. When every id is a plain int, the leaving
 * ones are sorted by value and merged in one pass over the ids (each id's value read once);
 * else (or NULL with no error set: -1 in *slow) the caller sorts the concatenation. Sorting it
 * every time cost about 22,000 instructions a client (a tick of the interest benchmark: 256
 * of them, some 230 ids each, dozens leaving). */
static PyObject *merged_ids(PyObject *ids, PyObject *leaving, int *slow) {
    Py_ssize_t n = PyList_GET_SIZE(ids), m = PyDict_GET_SIZE(leaving), pos = 0, k = 0, out = 0;
    IdValue *more = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(IdValue));
    PyObject *held = more ? PyList_New(n + m) : PyErr_NoMemory(), *id, *value;
    *slow = 0;
    while (held && PyDict_Next(leaving, &pos, &id, &value) && k < m) {
        if (!plain_id(id, &more[k].v))
            *slow = 1;
        more[k++].id = id;
    }
    if (held && (*slow || k != m)) {
        *slow = 1;
        Py_CLEAR(held);
    }
    if (held)
        qsort(more, (size_t)m, sizeof *more, id_value_cmp);
    for (Py_ssize_t i = 0, j = 0; held && i <= n; i++) {
        long long v = 0;
        if (i < n && !plain_id(PyList_GET_ITEM(ids, i), &v)) {
            *slow = 1;
            Py_CLEAR(held);
            break;
        }
        for (; j < m && (i == n || more[j].v < v); j++)
            PyList_SET_ITEM(held, out++, Py_NewRef(more[j].id));
        if (i < n)
            PyList_SET_ITEM(held, out++, Py_NewRef(PyList_GET_ITEM(ids, i)));
    }
    PyMem_Free(more);
    return held;
}


/* id named before by this client's changes (seen's stamps, or the dict other for ids outside
 * them, made when first needed): 1, 0 (and noted), -1 with an error. */
static int seen_before(Seen *seen, PyObject **other, PyObject *id) {
    if (PyLong_CheckExact(id)) {
        int over;
        long long v = PyLong_AsLongLongAndOverflow(id, &over);
        if (!over && v >= 0 && v < seen->n) {
            int was = seen->stamp[v] == seen->gen;
            seen->stamp[v] = seen->gen;
            return was;
        }
        if (v == -1 && PyErr_Occurred())
            return -1;
    }
    if (!*other && !(*other = PyDict_New()))
        return -1;
    int was = PyDict_Contains(*other, id);
    return was ? was : PyDict_SetItem(*other, id, Py_None);
}

/* Entering and leaving ids from the changes since base without the dict of them all that
 * relevance returns (its last item; assemble_clients does not read it): the change sets
 * after base oldest first, an id decided by the first (oldest) one that names it, as the
 * dict's newest-first updates leave it. 1; 0 with nothing done when a change set after base
 * is not a dict (relevance's own way takes any mapping); -1 with an error. */
static int changes_apply(PyObject *relevant, PyObject *ticks, PyObject *log, long long base,
                         PyObject *gone, Seen *seen, PyObject *entering, PyObject *leaving) {
    if (!base)
        return 1;
    Py_ssize_t k = PyList_GET_SIZE(ticks);
    for (; k > 0; k--) {
        long long t = PyLong_AsLongLong(PyList_GET_ITEM(ticks, k - 1));
        if (t == -1 && PyErr_Occurred())
            return -1;
        if (t <= base)
            break;
    }
    for (Py_ssize_t j = k; j < PyList_GET_SIZE(log); j++)
        if (!PyDict_Check(PyList_GET_ITEM(log, j)))
            return 0;
    PyObject *other = NULL;
    int rc = 0;
    for (; !rc && k < PyList_GET_SIZE(log); k++) {
        PyObject *changes = PyList_GET_ITEM(log, k), *id, *before;
        Py_INCREF(changes);
        Py_ssize_t pos = 0;
        while (!rc && PyDict_Next(changes, &pos, &id, &before)) {
            int named = seen_before(seen, &other, id);
            if (named) {
                rc = named < 0 ? -1 : 0;
                continue;
            }
            int in = PyDict_Contains(relevant, id), truth = PyObject_IsTrue(before);
            if (in < 0 || truth < 0 ||
                (in ? !truth && PySet_Add(entering, id) : truth && PyDict_SetItem(leaving, id, gone)))
                rc = -1;
        }
        Py_DECREF(changes);
    }
    Py_XDECREF(other);
    return rc ? rc : 1;
}

/* relevance's five items; with seen (assemble_clients'), the last is None: the entering and
 * leaving ids are found by changes_apply, with no dict of every change. */
static PyObject *relevance_of(PyObject *relevant, PyObject *order, PyObject *ticks,
                              PyObject *log, long long base, PyObject *gone, Seen *seen) {
    if (PyList_GET_SIZE(ticks) != PyList_GET_SIZE(log)) {
        PyErr_SetString(PyExc_ValueError, "a relevance log needs one tick per change set");
        return NULL;
    }
    if (PyList_GET_SIZE(order) != PyDict_GET_SIZE(relevant)) {
        PyErr_SetString(PyExc_ValueError, "the ordered ids are not the relevant ones");
        return NULL;
    }
    PyObject *out = NULL, *ids = NULL, *held = NULL, *entering = NULL, *leaving = NULL;
    PyObject *was = NULL;
    if (!(entering = PySet_New(NULL)) || !(leaving = PyDict_New()))
        goto done;
    int lean = seen ? changes_apply(relevant, ticks, log, base, gone, seen, entering, leaving) : 0;
    if (lean < 0 || !(was = lean ? Py_NewRef(Py_None) : changes_since(ticks, log, base)))
        goto done;
    Py_ssize_t pos = 0;
    PyObject *id, *before;
    while (!lean && PyDict_Next(was, &pos, &id, &before)) {
        int in = PyDict_Contains(relevant, id), truth = PyObject_IsTrue(before);
        if (in < 0 || truth < 0)
            goto done;
        if (in ? !truth && PySet_Add(entering, id) : truth && PyDict_SetItem(leaving, id, gone))
            goto done;
    }
    if (!(ids = PyList_GetSlice(order, 0, PyList_GET_SIZE(order))))
        goto done;
    if (!PyDict_GET_SIZE(leaving)) {
        held = Py_NewRef(ids);
    } else {
        int slow;
        held = merged_ids(ids, leaving, &slow);
        if (!held && !slow)
            goto done;
        if (!held) { /* not all plain ints: the concatenation, sorted */
            PyObject *keys = PyDict_Keys(leaving);
            held = keys ? PySequence_Concat(ids, keys) : NULL;
            Py_XDECREF(keys);
            if (!held || PyList_Sort(held))
                goto done;
        }
    }
    out = PyTuple_Pack(5, ids, held, entering, leaving, was);
done:
    Py_XDECREF(was);
    Py_XDECREF(ids);
    Py_XDECREF(held);
    Py_XDECREF(entering);
    Py_XDECREF(leaving);
    return out;
}

static PyObject *py_relevance(PyObject *self, PyObject *args) {
    PyObject *relevant, *order, *ticks, *log, *gone;
    long long base;
    if (!PyArg_ParseTuple(args, "O!O!O!O!LO", &PyDict_Type, &relevant, &PyList_Type, &order,
                          &PyList_Type, &ticks, &PyList_Type, &log, &base, &gone))
        return NULL;
    return relevance_of(relevant, order, ticks, log, base, gone, NULL);
}

static PyMethodDef methods[] = {
    {"commit", py_commit, METH_VARARGS,
     "commit(world, dirty, tick, oldest): World.commit's loop over the dirty entities (as "
     "_pyassemble.commit)."},
    {"assemble", py_assemble, METH_VARARGS,
     "assemble(deltas, tick, order, oldest, ids, entities, deleted, plans, class_bits, entering, "
     "held) -> "
     "[(record count, bytes)] per base: the shared sections (as _pyassemble.assemble)."},
    {"assemble_clients", py_assemble_clients, METH_VARARGS,
     "assemble_clients(deltas, tick, jobs, plans, class_bits) -> [(record count, bytes)]: each "
     "client's own section of a tick, a job (relevance's arguments for it) each (as "
     "_pyassemble.assemble_clients)."},
    {"encode_record", py_encode_record, METH_VARARGS,
     "encode_record(layout, class_bits, op, gap, mask, bits, widths) -> bytes: one record "
     "with whole values (as _pyassemble.encode_record)."},
    {"retest", py_retest, METH_VARARGS,
     "retest(view, watched, grid, touched, rank, pos, cell_of, always, own, world, centre, "
     "radius, memo) -> tests: the touched entities a view without a predicate watches or sees "
     "tested, what changed recorded (as _pyassemble.retest)."},
    {"aim", py_aim, METH_VARARGS,
     "aim(view, watched, grid, pos, centre, radius, size, always, own, entities, rule, memo) "
     "-> int: a view tested against everything it watches, what changed recorded (as "
     "_pyassemble.aim)."},
    {"moves", py_moves, METH_VARARGS,
     "moves(world, dirty, where, grid, cell_of, pos, touched, size, flat, rule, cell) -> int: "
     "the interest's grid after the dirty entities' moves (as _pyassemble.moves)."},
    {"fit", py_fit, METH_VARARGS,
     "fit(deltas, tick, base, order, entities, deleted, plans, class_bits, entering, held, room, "
     "most, ranked) -> ((count, bytes), waiting): the section of the records down a ranking that fit "
     "room bytes, and the ids of the ranking left waiting (as _pyassemble.fit)."},
    {"rank", py_rank, METH_VARARGS,
     "rank(tick, base, ids, entities, deleted, prior, since, hot, entering, weigh, near) -> "
     "[id]: a budget's records, most urgent first (as _pyassemble.rank)."},
    {"relevance", py_relevance, METH_VARARGS,
     "relevance(relevant, order, ticks, log, base, gone) -> (ids, held, entering, leaving, was): what "
     "a client's own section is made from, by an interest's view (as _pyassemble.relevance)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cassemble",
                                    "The compiled packet assembler of gdvariant.replication.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__cassemble(void) {
    s_spawn = PyUnicode_InternFromString("_net_spawn");
    s_hist = PyUnicode_InternFromString("_net_hist");
    s_layout = PyUnicode_InternFromString("_net_layout");
    s_cache = PyUnicode_InternFromString("_net_cache");
    s_bits = PyUnicode_InternFromString("_net_bits");
    s_widths = PyUnicode_InternFromString("_net_widths");
    s_fragment = PyUnicode_InternFromString("fragment");
    s_class_id = PyUnicode_InternFromString("class_id");
    s_count = PyUnicode_InternFromString("count");
    s_index_bits = PyUnicode_InternFromString("index_bits");
    s_world = PyUnicode_InternFromString("_net_world");
    s_dirty = PyUnicode_InternFromString("_net_dirty");
    s_before = PyUnicode_InternFromString("_net_before");
    s_enter_key = PyUnicode_InternFromString("enter");
    s_net_id = PyUnicode_InternFromString("net_id");
    s_vals = PyUnicode_InternFromString("_net_vals");
    s_client_id = PyUnicode_InternFromString("client_id");
    g_everywhere = PyTuple_New(0);
    PyObject *math = PyImport_ImportModule("math");
    g_dist = math ? PyObject_GetAttrString(math, "dist") : NULL;
    g_floor = math ? PyObject_GetAttrString(math, "floor") : NULL;
    Py_XDECREF(math);
    if (!g_dist || !g_floor)
        return NULL;
    k_sixty_four = PyLong_FromLong(64);
    PyObject *one = PyLong_FromLong(1);
    k_two64 = one && k_sixty_four ? PyNumber_Lshift(one, k_sixty_four) : NULL;
    Py_XDECREF(one);
    if (!s_spawn || !s_hist || !s_layout || !s_cache || !s_bits || !s_widths || !s_fragment ||
        !s_class_id || !s_count || !s_index_bits || !k_two64 || !s_world || !s_dirty ||
        !s_before || !s_enter_key || !s_net_id || !s_vals || !s_client_id || !g_everywhere)
        return NULL;
    if (PyType_Ready(&TableType))
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "Table", (PyObject *)&TableType)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
