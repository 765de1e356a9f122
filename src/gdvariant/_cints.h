/* Small exact ints read in place, shared by the compiled modules that read many of them
 * (replication._cassemble's ids, ticks, widths and masks; multiplayer._csync's indices and
 * net ids). Include it after <Python.h>.
 *
 * small_int: an exact int's value without a call, when CPython holds it in at most two digits
 * (3.11's ob_digit; from 3.12 one, read through its PyUnstable_Long API): 1, else 0 and the
 * caller converts it as before (PyLong_As..., errors included). Such a conversion is a call
 * of 30 to 70 instructions (docs/replication-interest-performance.md, "Small ints read in
 * line"). */
#ifndef GDVARIANT_CINTS_H
#define GDVARIANT_CINTS_H

static inline int small_int(PyObject *v, long long *out) {
    if (!PyLong_CheckExact(v))
        return 0;
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)v))
        return 0;
    *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)v);
    return 1;
#else
    const digit *d = ((PyLongObject *)v)->ob_digit;
    Py_ssize_t n = Py_SIZE(v);
    if (n == 1) { /* the most common: one positive digit */
        *out = (long long)d[0];
        return 1;
    }
    switch (n) {
    case 0:
        *out = 0;
        return 1;
    case -1:
        *out = -(long long)d[0];
        return 1;
    case 2:
        *out = (long long)d[0] | (long long)d[1] << PyLong_SHIFT;
        return 1;
    case -2:
        *out = -((long long)d[0] | (long long)d[1] << PyLong_SHIFT);
        return 1;
    default:
        return 0;
    }
#endif
}

#endif
