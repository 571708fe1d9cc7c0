/* toolwire.convert._speedups: the compiled form of ToolResult.from_mcp's hot path.
 *
 * One function, `all_text(obj, id, name)`, with exactly the contract of
 * `_result._all_text_pure` (the pure form, which stays the reference and runs wherever
 * this module is not built): for an MCP CallToolResult dict of plain ASCII texts
 * ({"content": [...]} with at most "isError" beside it, every item
 * {"type": "text", "text": <ASCII, neither empty nor blank>}) it returns the
 * finished ToolResult; for the same envelope where a non-text item follows
 * those texts it returns the list of the texts before it (the caller parses
 * the rest); for anything else None (the caller takes the general path). It
 * calls no Python code of its own, so whenever it is unsure it answers None and
 * the general path decides, with the same result.
 *
 * `bind(cls, complete, no_structured)` is called once, at import: it reads the
 * offsets of ToolResult's slots from their member descriptors, so the result
 * is built by storing into them (what the descriptors themselves do), without
 * ToolResult.__setattr__, which refuses every store.
 *
 * The tests hold this module and the pure form to each other on generated
 * input (tests/convert/test_convert_speedups.py); TOOLWIRE_PURE=1 in the
 * environment makes toolwire ignore this module.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static const char *const FIELDS[] = {
    "name", "id", "is_error", "result_type", "_source",
    "_texts", "_parsed", "_string", "_structured",
};
enum { NAME, ID, IS_ERROR, RESULT_TYPE, SOURCE, TEXTS, PARSED, STRING, STRUCTURED, NFIELDS };

static PyTypeObject *result_type = NULL; /* ToolResult, once bound */
static Py_ssize_t offsets[NFIELDS];
static PyObject *complete = NULL;      /* "complete" */
static PyObject *no_structured = NULL; /* _result._NO_STRUCTURED */
static PyObject *key_content, *key_is_error, *key_text, *key_type, *newline;

#define SLOT(obj, field) (*(PyObject **)((char *)(obj) + offsets[field]))

static PyObject *
bind(PyObject *module, PyObject *args)
{
    PyObject *cls, *complete_, *no_structured_;
    Py_ssize_t found[NFIELDS];

    if (!PyArg_ParseTuple(args, "O!UO!:bind", &PyType_Type, &cls, &complete_, &PyTuple_Type,
                          &no_structured_))
        return NULL;
    for (int field = 0; field < NFIELDS; field++) {
        PyObject *descr = PyObject_GetAttrString(cls, FIELDS[field]);
        if (descr == NULL)
            return NULL;
        int ok = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
                 ((PyMemberDescrObject *)descr)->d_common.d_type == (PyTypeObject *)cls &&
                 ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX &&
                 !(((PyMemberDescrObject *)descr)->d_member->flags & READONLY);
        if (ok)
            found[field] = ((PyMemberDescrObject *)descr)->d_member->offset;
        Py_DECREF(descr);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "bind: %s.%s is not a slot of that class",
                         ((PyTypeObject *)cls)->tp_name, FIELDS[field]);
            return NULL;
        }
    }
    memcpy(offsets, found, sizeof offsets);
    Py_INCREF(cls);
    Py_XSETREF(result_type, (PyTypeObject *)cls);
    Py_INCREF(complete_);
    Py_XSETREF(complete, complete_);
    Py_INCREF(no_structured_);
    Py_XSETREF(no_structured, no_structured_);
    Py_RETURN_NONE;
}

/* 1 for an ASCII str (ready), else 0 */
static int
is_ascii(PyObject *text)
{
    return PyUnicode_READY(text) == 0 && PyUnicode_IS_ASCII(text);
}

/* 1 for an ASCII text that is neither empty nor all whitespace (str.isspace) */
static int
shows(PyObject *text)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *data = PyUnicode_1BYTE_DATA(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        if (!Py_UNICODE_ISSPACE(data[i]))
            return 1;
    }
    return 0;
}

static PyObject *
all_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *obj, *id, *name, *is_error, *content, *texts, *item, *result;

    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "all_text() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (result_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "all_text() before bind()");
        return NULL;
    }
    obj = args[0];
    id = args[1];
    name = args[2];
    if (!PyDict_CheckExact(obj))
        Py_RETURN_NONE;
    /* the envelope: {"content": [...]} with at most "isError" (a bool) beside it */
    switch (PyDict_GET_SIZE(obj)) {
    case 1:
        is_error = Py_False;
        break;
    case 2:
        is_error = PyDict_GetItemWithError(obj, key_is_error);
        if (is_error == NULL) {
            if (PyErr_Occurred())
                return NULL;
            Py_RETURN_NONE;
        }
        break;
    default:
        Py_RETURN_NONE;
    }
    if (is_error != Py_True && is_error != Py_False)
        Py_RETURN_NONE;
    content = PyDict_GetItemWithError(obj, key_content);
    if (content == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    if (!PyList_CheckExact(content) || !PyUnicode_CheckExact(id) || !PyUnicode_CheckExact(name) ||
        !is_ascii(id) || !is_ascii(name))
        Py_RETURN_NONE;

    texts = PyList_New(0);
    if (texts == NULL)
        return NULL;
    Py_INCREF(content); /* a dict lookup may compare keys (Python code): hold what is read */
    /* the loop reads the list's length afresh each time, as a Python for loop does */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
        PyObject *text, *kind;
        item = PyList_GET_ITEM(content, i);
        Py_INCREF(item);
        if (!PyDict_CheckExact(item))
            goto general;
        kind = PyDict_GetItemWithError(item, key_type);
        if (kind == NULL) {
            if (PyErr_Occurred())
                goto error;
            goto general;
        }
        if (!PyUnicode_CheckExact(kind))
            goto general;
        Py_INCREF(kind);
        int is_text = PyUnicode_Compare(kind, key_text) == 0;
        Py_DECREF(kind);
        if (!is_text) {
            /* media or other items after the texts: the caller parses the rest */
            Py_DECREF(item);
            Py_DECREF(content);
            return texts;
        }
        if (PyDict_GET_SIZE(item) != 2)
            goto general;
        text = PyDict_GetItemWithError(item, key_text);
        if (text == NULL) {
            if (PyErr_Occurred())
                goto error;
            goto general;
        }
        if (!PyUnicode_CheckExact(text) || !is_ascii(text) || !shows(text))
            goto general;
        if (PyList_Append(texts, text) < 0)
            goto error;
        Py_DECREF(item);
    }
    Py_DECREF(content);

    PyObject *string = PyUnicode_Join(newline, texts);
    if (string == NULL) {
        Py_DECREF(texts);
        return NULL;
    }
    result = result_type->tp_alloc(result_type, 0);
    if (result == NULL) {
        Py_DECREF(string);
        Py_DECREF(texts);
        return NULL;
    }
    Py_INCREF(name);
    SLOT(result, NAME) = name;
    Py_INCREF(id);
    SLOT(result, ID) = id;
    Py_INCREF(is_error);
    SLOT(result, IS_ERROR) = is_error;
    Py_INCREF(complete);
    SLOT(result, RESULT_TYPE) = complete;
    Py_INCREF(texts);
    SLOT(result, SOURCE) = texts; /* private, never changed: the source and the texts */
    SLOT(result, TEXTS) = texts;  /* (the list's own reference) */
    Py_INCREF(Py_None);
    SLOT(result, PARSED) = Py_None;
    SLOT(result, STRING) = string;
    Py_INCREF(no_structured);
    SLOT(result, STRUCTURED) = no_structured;
    return result;

general: /* not the hot path's shape: the caller takes the general path */
    Py_DECREF(item);
    Py_DECREF(content);
    Py_DECREF(texts);
    Py_RETURN_NONE;
error:
    Py_DECREF(item);
    Py_DECREF(content);
    Py_DECREF(texts);
    return NULL;
}

/* --- base64: every symbol in the alphabet ------------------------------------------
 *
 * `alphabet(data, end)`: whether data[:end] (an ASCII str) is all in the standard
 * base64 alphabet (A-Z a-z 0-9 + /); `data_url(prefix, data, end)`: prefix + data,
 * with data[:end] checked so while it is copied (one read of the payload instead of
 * two), or None when a symbol is not in the alphabet. The shape (length, padding,
 * the canonical final quantum) is `_base64._core`'s to check; `_base64` states the
 * rules and keeps the pure methods, which give the same verdicts.
 *
 * Blocks of 32 symbols are checked at a time: with AVX2 where the CPU has it (picked
 * at run time) by two 16-entry tables indexed by each byte's low and high nibble,
 * whose bitwise and is non-zero exactly for a byte outside the alphabet; elsewhere
 * with the compiler's vector types (three ranges, two symbols), or byte by byte. */

#define BLOCK 32
#define SPAN 4096 /* copied, then checked while still in L1; a bad symbol stops it */

static unsigned char symbol_table[256]; /* 1 for a symbol; filled at import */

static void
fill_symbol_table(void)
{
    const char *symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (const char *c = symbols; *c; c++)
        symbol_table[(unsigned char)*c] = 1;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NIBBLES 1
/* By high nibble, one bit per class of high nibble: 2 ('+' '/'), 3 (digits), 4 and 6
 * (letters from 1), 5 and 7 (letters to A); every other high nibble (controls, non-ASCII)
 * has bit 16. By low nibble, the classes in which that low nibble is no symbol (and 16). */
#define HIGH_BITS 16, 16, 1, 2, 4, 8, 4, 8, 16, 16, 16, 16, 16, 16, 16, 16
#define LOW_BITS                                                                          \
    16 | 1 | 4, 16 | 1, 16 | 1, 16 | 1, 16 | 1, 16 | 1, 16 | 1, 16 | 1, 16 | 1, 16 | 1,  \
        16 | 1 | 2, 16 | 2 | 8, 16 | 1 | 2 | 8, 16 | 1 | 2 | 8, 16 | 1 | 2 | 8, 16 | 2 | 8

/* Check the whole blocks of data[0:size]; return where it stopped (past the last whole
 * block, or sooner once a bad symbol was seen); *bad_found: whether one was seen. */
__attribute__((target("avx2"))) static Py_ssize_t
blocks_avx2(const unsigned char *data, Py_ssize_t size, int *bad_found)
{
    const __m256i high = _mm256_setr_epi8(HIGH_BITS, HIGH_BITS);
    const __m256i low = _mm256_setr_epi8(LOW_BITS, LOW_BITS);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i bad = _mm256_setzero_si256();
    Py_ssize_t i = 0;
#define CHECK(at)                                                                          \
    do {                                                                                   \
        __m256i x = _mm256_loadu_si256((const __m256i *)(data + (at)));                    \
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);                    \
        __m256i lo = _mm256_and_si256(x, nibble);                                          \
        bad = _mm256_or_si256(                                                             \
            bad, _mm256_and_si256(_mm256_shuffle_epi8(high, hi), _mm256_shuffle_epi8(low, lo))); \
    } while (0)
    for (; i + 4 * BLOCK <= size; i += 4 * BLOCK) {
        CHECK(i);
        CHECK(i + BLOCK);
        CHECK(i + 2 * BLOCK);
        CHECK(i + 3 * BLOCK);
        if ((i & (SPAN - 1)) == SPAN - 4 * BLOCK && !_mm256_testz_si256(bad, bad))
            break;
    }
    for (; i + BLOCK <= size; i += BLOCK)
        CHECK(i);
#undef CHECK
    *bad_found = !_mm256_testz_si256(bad, bad);
    return i;
}

static int avx2 = 0; /* this CPU runs AVX2: read at import (the check runs without the GIL) */
#endif

#if defined(__GNUC__) || defined(__clang__)
typedef signed char i8x32 __attribute__((vector_size(BLOCK)));
typedef unsigned char u8x32 __attribute__((vector_size(BLOCK)));
typedef unsigned long long u64x4 __attribute__((vector_size(BLOCK)));

/* blocks_avx2's contract, with the compiler's vector types (any CPU) */
static Py_ssize_t
blocks_vector(const unsigned char *data, Py_ssize_t size, int *bad_found)
{
    i8x32 ok = ~(i8x32){0};
    Py_ssize_t i = 0;
    for (; i + BLOCK <= size; i += BLOCK) {
        u8x32 x;
        memcpy(&x, data + i, BLOCK);
        /* x in [lo, hi] as one signed compare: move lo to -128 (unsigned, wrapping) */
        i8x32 letter = (i8x32)((x | 0x20) + (unsigned char)(0x80 - 'a'));
        i8x32 digit = (i8x32)(x + (unsigned char)(0x80 - '0'));
        ok &= (letter < (signed char)(-128 + 26)) | (digit < (signed char)(-128 + 10)) |
              (i8x32)(x == '+') | (i8x32)(x == '/');
        if ((i & (SPAN - 1)) == SPAN - BLOCK) {
            u64x4 all = (u64x4)ok;
            if (~(all[0] & all[1] & all[2] & all[3]))
                break;
        }
    }
    u64x4 all = (u64x4)ok;
    *bad_found = ~(all[0] & all[1] & all[2] & all[3]) != 0;
    return i;
}
#endif

/* 1 when the AVX2 kernel is built in and this CPU runs it */
static int
avx2_built(void)
{
#ifdef NIBBLES
    return avx2;
#else
    return 0;
#endif
}

/* the kernels in_alphabet can run (the tests run each) */
enum { AUTO, AVX2, VECTOR, SCALAR };

/* 1 when every byte of data[0:size] is a base64 symbol */
static int
in_alphabet(const unsigned char *data, Py_ssize_t size, int kernel)
{
    Py_ssize_t i = 0;
    int bad = 0;
#ifdef NIBBLES
    if (kernel == AUTO && avx2)
        kernel = AVX2;
    if (kernel == AVX2)
        i = blocks_avx2(data, size, &bad);
#endif
#if defined(__GNUC__) || defined(__clang__)
    if (kernel == AUTO || kernel == VECTOR)
        i = blocks_vector(data, size, &bad);
#endif
    if (bad)
        return 0;
    for (; i < size; i++) {
        if (!symbol_table[data[i]])
            return 0;
    }
    return 1;
}

/* the ASCII bytes of str data, or NULL (not an ASCII str); end clamped to [0, length] */
static const unsigned char *
ascii_bytes(PyObject *data, Py_ssize_t *end)
{
    if (!PyUnicode_Check(data) || !is_ascii(data))
        return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(data);
    if (*end < 0)
        *end = 0;
    if (*end > length)
        *end = length;
    return PyUnicode_1BYTE_DATA(data);
}

static PyObject *
alphabet(PyObject *module, PyObject *args)
{
    PyObject *data;
    Py_ssize_t end;
    int kernel = AUTO;
    if (!PyArg_ParseTuple(args, "Un|i:alphabet", &data, &end, &kernel))
        return NULL;
    if (kernel < AUTO || kernel > SCALAR || (kernel == AVX2 && !avx2_built()))
        return PyErr_Format(PyExc_ValueError, "alphabet: no kernel %d here", kernel);
    const unsigned char *bytes = ascii_bytes(data, &end);
    if (bytes == NULL)
        Py_RETURN_FALSE;
    int ok;
    Py_BEGIN_ALLOW_THREADS /* data is immutable, and held by the caller */
    ok = in_alphabet(bytes, end, kernel);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

static PyObject *
kernels(PyObject *module, PyObject *unused)
{
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    for (int kernel = AUTO; kernel <= SCALAR; kernel++) {
        if (kernel == AVX2 && !avx2_built())
            continue;
#if !defined(__GNUC__) && !defined(__clang__)
        if (kernel == VECTOR)
            continue;
#endif
        PyObject *number = PyLong_FromLong(kernel);
        if (number == NULL || PyList_Append(found, number) < 0) {
            Py_XDECREF(number);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(number);
    }
    return found;
}

static PyObject *
data_url(PyObject *module, PyObject *args)
{
    PyObject *prefix, *data, *url;
    Py_ssize_t end;
    if (!PyArg_ParseTuple(args, "UUn:data_url", &prefix, &data, &end))
        return NULL;
    const unsigned char *bytes = ascii_bytes(data, &end);
    if (bytes == NULL || !is_ascii(prefix))
        Py_RETURN_NONE;
    Py_ssize_t head = PyUnicode_GET_LENGTH(prefix), size = PyUnicode_GET_LENGTH(data);
    if (size > PY_SSIZE_T_MAX - head)
        return PyErr_NoMemory();
    url = PyUnicode_New(head + size, 127);
    if (url == NULL)
        return NULL;
    unsigned char *out = PyUnicode_1BYTE_DATA(url);
    memcpy(out, PyUnicode_1BYTE_DATA(prefix), head);
    out += head;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS /* url is not yet shared; data is immutable, held by the caller */
    for (Py_ssize_t at = 0; at < size && ok; at += SPAN) {
        Py_ssize_t span = size - at < SPAN ? size - at : SPAN;
        memcpy(out + at, bytes + at, span);
        if (at < end)
            ok = in_alphabet(out + at, (end - at < span ? end - at : span), AUTO);
    }
    Py_END_ALLOW_THREADS
    if (!ok) {
        Py_DECREF(url);
        Py_RETURN_NONE;
    }
    return url;
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(cls, complete, no_structured)\n--\n\n"
     "Read the slot offsets of cls (ToolResult) and keep the constants all_text() stores."},
    {"all_text", (PyCFunction)(void (*)(void))all_text, METH_FASTCALL,
     "all_text(obj, id, name)\n--\n\n"
     "Return the ToolResult of a plain all-text MCP result, the leading texts when a\n"
     "non-text item follows them, or None (see _result._all_text_pure)."},
    {"alphabet", alphabet, METH_VARARGS,
     "alphabet(data, end, kernel=0)\n--\n\n"
     "Whether data[:end] (an ASCII str) is all in the standard base64 alphabet.\n"
     "kernel: 0 the fastest here, 1 AVX2, 2 vector types, 3 byte by byte (see kernels())."},
    {"kernels", kernels, METH_NOARGS,
     "kernels()\n--\n\n"
     "The kernels alphabet() can run here, by number (0 is the fastest of them)."},
    {"data_url", data_url, METH_VARARGS,
     "data_url(prefix, data, end)\n--\n\n"
     "prefix + data, data[:end] checked to be in the base64 alphabet while it is\n"
     "copied; None when it is not (or either string is not ASCII)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_speedups",
    "The compiled forms of ToolResult.from_mcp's hot path and of the base64 alphabet check.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    key_content = PyUnicode_InternFromString("content");
    key_is_error = PyUnicode_InternFromString("isError");
    key_text = PyUnicode_InternFromString("text");
    key_type = PyUnicode_InternFromString("type");
    newline = PyUnicode_InternFromString("\n");
    if (!key_content || !key_is_error || !key_text || !key_type || !newline)
        return NULL;
    fill_symbol_table();
#ifdef NIBBLES
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    return PyModule_Create(&module_def);
}
