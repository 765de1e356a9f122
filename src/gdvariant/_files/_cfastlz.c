/* FastLZ in C, as gdvariant._files.fastlz_pure does it: level-1 compression byte for byte as
 * the engine's bundled FastLZ writes it (GCPF mode 0), and both levels read.
 *
 * The pure-Python module is the reference. Whenever a stream is not exactly right (cut short,
 * a bad control byte, a reference before the start, a size that does not match) the call is
 * handed to it, so an error and its message never differ between the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* gdvariant._files.fastlz_pure.decompress, imported on the first hand-over. */
static PyObject *pure_decompress;

static PyObject *pure(PyObject *args) {
    if (pure_decompress == NULL) {
        PyObject *mod = PyImport_ImportModule("gdvariant._files.fastlz_pure");
        if (mod == NULL) return NULL;
        pure_decompress = PyObject_GetAttrString(mod, "decompress");
        Py_DECREF(mod);
        if (pure_decompress == NULL) return NULL;
    }
    return PyObject_CallObject(pure_decompress, args);
}

#define LZ_HASH_LOG 13
#define LZ_HASH_SIZE (1 << LZ_HASH_LOG)
#define LZ_MAX_COPY 32
#define LZ_MAX_DISTANCE 8192
#define LZ_MAX_LEN 264

static inline uint32_t lz_hash(const unsigned char *p) {
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8;
    v ^= ((uint32_t)p[1] | (uint32_t)p[2] << 8) ^ (v >> 3);
    return v & (LZ_HASH_SIZE - 1);
}

static PyObject *py_compress(PyObject *self, PyObject *arg) {
    Py_buffer in;
    if (PyObject_GetBuffer(arg, &in, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = in.buf;
    Py_ssize_t n = in.len;
    PyObject *r = NULL;
    if (n < 4) {
        r = PyBytes_FromStringAndSize(NULL, n ? n + 1 : 0);
        if (r != NULL && n) {
            PyBytes_AS_STRING(r)[0] = (char)(n - 1);
            memcpy(PyBytes_AS_STRING(r) + 1, data, (size_t)n);
        }
        PyBuffer_Release(&in);
        return r;
    }
    /* Worst case: one control byte per 32 literals, plus slack. */
    Py_ssize_t room = n + n / 16 + 64;
    unsigned char *out = PyMem_Malloc((size_t)room);
    uint32_t *table = PyMem_Calloc(LZ_HASH_SIZE, sizeof(uint32_t));
    if (out == NULL || table == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t op = 0, ip = 2, copy = 2;
    out[op++] = LZ_MAX_COPY - 1;
    out[op++] = data[0];
    out[op++] = data[1];
    Py_ssize_t bound = n - 2, limit = n - 13;
    while (ip < limit) {
        Py_ssize_t anchor = ip;
        uint32_t h = lz_hash(data + ip);
        Py_ssize_t ref = table[h];
        table[h] = (uint32_t)anchor;
        Py_ssize_t distance = anchor - ref;
        if (distance == 0 || distance >= LZ_MAX_DISTANCE || data[ref] != data[anchor] ||
            data[ref + 1] != data[anchor + 1] || data[ref + 2] != data[anchor + 2]) {
            out[op++] = data[anchor];
            ip = anchor + 1;
            if (++copy == LZ_MAX_COPY) {
                copy = 0;
                out[op++] = LZ_MAX_COPY - 1;
            }
            continue;
        }
        ip = anchor + 3;
        ref += 3;
        distance -= 1;
        if (distance == 0) { /* a run of one byte: stops at the first different byte */
            unsigned char x = data[ip - 1];
            while (ip < bound && data[ref] == x) {
                ref++;
                ip++;
            }
        } else { /* stops one past the first different byte; the first 8 compares always run */
            int compares = 0;
            while (compares < 8 || ip < bound) {
                int same = data[ref] == data[ip];
                ref++;
                ip++;
                compares++;
                if (!same) break;
            }
        }
        if (copy) out[op - copy - 1] = (unsigned char)(copy - 1);
        else op--;
        copy = 0;
        ip -= 3;
        Py_ssize_t length = ip - anchor;
        while (length > LZ_MAX_LEN - 2) {
            out[op++] = (unsigned char)(0xE0 + (distance >> 8));
            out[op++] = LZ_MAX_LEN - 2 - 7 - 2;
            out[op++] = (unsigned char)(distance & 255);
            length -= LZ_MAX_LEN - 2;
        }
        if (length < 7) {
            out[op++] = (unsigned char)((length << 5) + (distance >> 8));
            out[op++] = (unsigned char)(distance & 255);
        } else {
            out[op++] = (unsigned char)(0xE0 + (distance >> 8));
            out[op++] = (unsigned char)(length - 7);
            out[op++] = (unsigned char)(distance & 255);
        }
        table[lz_hash(data + ip)] = (uint32_t)ip;
        ip++;
        table[lz_hash(data + ip)] = (uint32_t)ip;
        ip++;
        out[op++] = LZ_MAX_COPY - 1;
    }
    for (; ip < n; ip++) {
        out[op++] = data[ip];
        if (++copy == LZ_MAX_COPY) {
            copy = 0;
            out[op++] = LZ_MAX_COPY - 1;
        }
    }
    if (copy) out[op - copy - 1] = (unsigned char)(copy - 1);
    else op--;
    r = PyBytes_FromStringAndSize((const char *)out, op);
done:
    PyMem_Free(out);
    PyMem_Free(table);
    PyBuffer_Release(&in);
    return r;
}

/* A stream that is not exactly right goes to the pure decoder, which raises the reference
 * FastLZError; fast_path_decompress gives None for it instead (tests, fuzzing). */
static PyObject *decompress(PyObject *args, int hand_over) {
    Py_buffer in;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "y*n", &in, &size)) return NULL;
    const unsigned char *s = in.buf;
    Py_ssize_t n = in.len, ip = 1, op = 0;
    PyObject *r = NULL;
    if (n == 0 && size == 0) {
        PyBuffer_Release(&in);
        return PyBytes_FromStringAndSize(NULL, 0);
    }
    if (n == 0 || size < 0 || (s[0] >> 5) > 1) goto bad;
    int level = (s[0] >> 5) + 1;
    r = PyBytes_FromStringAndSize(NULL, size);
    if (r == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(r);
    uint32_t ctrl = s[0] & 31;
    for (;;) {
        if (ctrl < 32) {
            Py_ssize_t run = (Py_ssize_t)ctrl + 1;
            if (ip + run > n || op + run > size) goto bad;
            memcpy(out + op, s + ip, (size_t)run);
            ip += run;
            op += run;
        } else {
            Py_ssize_t length = (ctrl >> 5) - 1, offset = (Py_ssize_t)(ctrl & 31) << 8;
            if (length == 6) {
                for (;;) {
                    if (ip >= n) goto bad;
                    unsigned char code = s[ip++];
                    length += code;
                    if (level == 1 || code != 255) break;
                }
            }
            if (ip >= n) goto bad;
            unsigned char code = s[ip++];
            Py_ssize_t distance = offset + code + 1;
            if (level == 2 && code == 255 && offset == (31 << 8)) {
                if (ip + 2 > n) goto bad;
                distance = ((Py_ssize_t)s[ip] << 8 | s[ip + 1]) + 8191 + 1;
                ip += 2;
            }
            length += 3;
            Py_ssize_t start = op - distance;
            if (start < 0 || op + length > size) goto bad;
            for (Py_ssize_t i = 0; i < length; i++) out[op + i] = out[start + i];
            op += length;
        }
        if (ip >= n) break;
        ctrl = s[ip++];
    }
    if (op != size) goto bad;
    goto done;
bad:
    Py_XDECREF(r);
    PyBuffer_Release(&in);
    if (hand_over) return pure(args);
    Py_RETURN_NONE;
done:
    PyBuffer_Release(&in);
    return r;
}

static PyObject *py_decompress(PyObject *self, PyObject *args) {
    return decompress(args, 1);
}

static PyObject *py_fast_decompress(PyObject *self, PyObject *args) {
    return decompress(args, 0);
}

static PyMethodDef methods[] = {
    {"compress", py_compress, METH_O, "compress(data) -> bytes: level-1 FastLZ as the engine writes it"},
    {"decompress", py_decompress, METH_VARARGS,
     "decompress(stream, size) -> bytes: a level-1 or level-2 stream of exactly size"},
    {"fast_path_decompress", py_fast_decompress, METH_VARARGS,
     "fast_path_decompress(stream, size) -> bytes, or None if it hands over"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._files._cfastlz",
    "FastLZ in C (gdvariant._files.fastlz_pure is the reference).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cfastlz(void) { return PyModule_Create(&module); }
