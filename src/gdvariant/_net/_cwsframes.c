/* The WebSocket frame reader in C, as gdvariant._net._pywsframes does it (the reference):
 * from a chunk read from a client, the payloads of the whole frames a server may take without
 * websockets (masked, FIN, binary, RSV bits 0, at most `limit` bytes), unmasked, and where the
 * first frame that is not one of them starts (docs/multiplayer.md, "WebSocket transport").
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A new bytes object of `size` bytes of `src` XOR the 4-byte `mask` repeated (RFC 6455 5.3),
 * eight bytes at a time. */
static PyObject *unmasked(const unsigned char *src, Py_ssize_t size, const unsigned char *mask) {
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) return NULL;
    unsigned char *dst = (unsigned char *)PyBytes_AS_STRING(out);
    unsigned char key[8];
    memcpy(key, mask, 4);
    memcpy(key + 4, mask, 4);
    uint64_t wide;
    memcpy(&wide, key, 8);
    Py_ssize_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t word;
        memcpy(&word, src + i, 8);
        word ^= wide;
        memcpy(dst + i, &word, 8);
    }
    for (; i < size; i++) dst[i] = src[i] ^ mask[i & 3];
    return out;
}

/* read() on `end` bytes at `data` (the caller holds the buffer). */
static PyObject *read_frames(const unsigned char *data, Py_ssize_t end, Py_ssize_t start,
                             Py_ssize_t limit) {
    if (start < 0 || start > end) {
        PyErr_SetString(PyExc_ValueError, "start outside the data");
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    Py_ssize_t pos = start;
    while (end - pos >= 6) { /* a head of 2 bytes and a mask of 4 */
        const unsigned char *p = data + pos;
        if (p[0] != 0x82 || !(p[1] & 0x80)) break; /* websockets' to judge */
        uint64_t length = p[1] & 0x7F;
        Py_ssize_t head = 2;
        if (length == 126) {
            length = (uint64_t)p[2] << 8 | p[3];
            head = 4;
        } else if (length == 127) {
            if (end - pos < 10) break;
            length = 0;
            for (int k = 2; k < 10; k++) length = length << 8 | p[k];
            head = 10;
        }
        /* too big (websockets closes with 1009) or not all here yet */
        if (limit < 0 || length > (uint64_t)limit) break;
        if ((uint64_t)(end - pos - head) < 4 || length > (uint64_t)(end - pos - head - 4)) break;
        PyObject *payload = unmasked(p + head + 4, (Py_ssize_t)length, p + head);
        if (payload == NULL || PyList_Append(found, payload) < 0) {
            Py_XDECREF(payload);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(payload);
        pos += head + 4 + (Py_ssize_t)length;
    }
    PyObject *stop = PyLong_FromSsize_t(pos);
    if (stop == NULL) {
        Py_DECREF(found);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(2, found, stop);
    Py_DECREF(found);
    Py_DECREF(stop);
    return result;
}

static PyObject *py_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "read(data: bytes | memoryview, start: int, limit: int)");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[2]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    /* bytes, or a read straight from the server's read buffer (a memoryview of it) */
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *result = read_frames((const unsigned char *)view.buf, view.len, start, limit);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"read", (PyCFunction)(void (*)(void))py_read, METH_FASTCALL,
     "read(data, start, limit) -> (payloads, stop): the whole masked FIN binary frames"
     " (data: bytes or any contiguous buffer)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gdvariant._net._cwsframes",
    "The WebSocket frame reader in C (gdvariant._net._pywsframes is the reference).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cwsframes(void) { return PyModule_Create(&module); }
