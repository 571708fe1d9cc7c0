/* toolwire.convert._speedups: compiled forms of the converter's hot paths.
 *
 * - `all_text(obj, id, name)`: ToolResult.from_mcp's hot path (the pure form is in
 *   from_mcp itself, which stays the reference and runs wherever this module is not
 *   built): for an MCP CallToolResult dict of plain ASCII texts ({"content": [...]}
 *   with at most "isError" beside it, every item {"type": "text", "text": <ASCII,
 *   neither empty nor blank>}) the finished ToolResult; where a non-text item follows
 *   such texts, the finished ToolResult too when every item from there on is one
 *   `_result._plain_item` takes (see "mixed content" below), else the list of the
 *   texts before it (the caller parses the rest); for anything else None (the caller
 *   takes the general path). Whenever it is unsure it leaves the answer to Python.
 * - `alphabet` and `data_url`: the base64 alphabet check, alone or while the payload
 *   is copied into a data: URL (see below).
 *
 * `bind(cls, complete, no_structured)` and `bind_items(...)` are called once, at
 * import: they read the offsets of ToolResult's and Item's slots from their member
 * descriptors, so results and items are built by storing into them (what the
 * descriptors themselves do), without ToolResult.__setattr__, which refuses every
 * store.
 *
 * The tests hold this module and the pure forms to each other on generated input
 * (tests/convert/test_convert_speedups.py); TOOLWIRE_PURE=1 in the environment makes
 * toolwire ignore this module.
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

/* a str made the legacy way (3.11's wstr form) is readied first; from 3.12 every str is */
#if PY_VERSION_HEX < 0x030C0000
#define READY(text) (PyUnicode_READY(text) == 0)
#else
#define READY(text) 1
#endif

#define SLOT(obj, field) (*(PyObject **)((char *)(obj) + offsets[field]))

/* Read the offsets of cls's slots `names` into `out`; 0, or -1 with an error set. */
static int
read_offsets(PyObject *cls, const char *const *names, int count, Py_ssize_t *out)
{
    for (int field = 0; field < count; field++) {
        PyObject *descr = PyObject_GetAttrString(cls, names[field]);
        if (descr == NULL)
            return -1;
        int ok = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
                 ((PyMemberDescrObject *)descr)->d_common.d_type == (PyTypeObject *)cls &&
                 ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX &&
                 !(((PyMemberDescrObject *)descr)->d_member->flags & READONLY);
        if (ok)
            out[field] = ((PyMemberDescrObject *)descr)->d_member->offset;
        Py_DECREF(descr);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "bind: %s.%s is not a slot of that class",
                         ((PyTypeObject *)cls)->tp_name, names[field]);
            return -1;
        }
    }
    return 0;
}

static PyObject *
bind(PyObject *module, PyObject *args)
{
    PyObject *cls, *complete_, *no_structured_;
    Py_ssize_t found[NFIELDS];

    if (!PyArg_ParseTuple(args, "O!UO!:bind", &PyType_Type, &cls, &complete_, &PyTuple_Type,
                          &no_structured_))
        return NULL;
    if (read_offsets(cls, FIELDS, NFIELDS, found) < 0)
        return NULL;
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
    return READY(text) && PyUnicode_IS_ASCII(text);
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

/* --- mixed content: plain texts and media items ---------------------------------
 *
 * Past the leading texts, `all_text` goes on through the items `_result._plain_item`
 * knows (an ASCII text, an image or audio item, a blob resource, with ASCII strings and
 * no other field) and builds what `_result._parse` and `_items.blob` would: the frozen
 * items, the `Item`s (stored by slot, as the result is) and the string form. At the
 * first thing it does not take -- any other item, a payload `_base64.look` reads on its
 * slow path (not whole quanta, a head outside the alphabet, a tail to screen), a text
 * resource (decoded to text) -- it gives up, and the caller parses from the first
 * non-text item in Python, with the same result. `bind_items` hands it the Item class,
 * the kinds and the Python helpers it calls (the MIME normaliser and its cache, the
 * table of payload heads and the function that fills it, `shown_uri`). */

static const char *const ITEM_FIELDS[] = {
    "_clean", "block", "cache_control", "declared", "kind", "mime",
    "raw", "size", "tag", "text", "uri",
};
enum { I_CLEAN, I_BLOCK, I_CACHE, I_DECLARED, I_KIND, I_MIME, I_RAW, I_SIZE, I_TAG, I_TEXT,
       I_URI, NITEM };

static PyTypeObject *item_type = NULL; /* _items.Item, once bound */
static Py_ssize_t item_offsets[NITEM];
/* the kinds (ints), the unchecked marker, the image MIME types, the MIME cache and its
 * function, the heads table, its function and its marker of a bad head, shown_uri */
static PyObject *k_text, *k_image, *k_pdf, *k_other, *unchecked, *image_mimes, *mime_cache,
    *normal_mime, *heads, *head_of, *bad_head, *shown_uri;
static PyObject *zero; /* 0, a text item's size */
static PyObject *s_image, *s_audio, *s_resource, *s_data, *s_mime_type, *s_blob, *s_uri,
    *s_resource_key, *s_octet, *s_pdf, *s_empty, *s_text_prefix, *s_image_prefix;

#define ITEM_SLOT(obj, field) (*(PyObject **)((char *)(obj) + item_offsets[field]))

static PyObject *
bind_items(PyObject *module, PyObject *args)
{
    PyObject *cls, *kinds, *objs[8];
    Py_ssize_t found[NITEM];
    if (!PyArg_ParseTuple(args, "O!O!OO!O!OO!OOO:bind_items", &PyType_Type, &cls, &PyTuple_Type,
                          &kinds, &objs[0], &PyFrozenSet_Type, &objs[1], &PyDict_Type, &objs[2],
                          &objs[3], &PyDict_Type, &objs[4], &objs[5], &objs[6], &objs[7]))
        return NULL;
    if (PyTuple_GET_SIZE(kinds) != 4) {
        PyErr_SetString(PyExc_TypeError, "bind_items: kinds is (TEXT, IMAGE, PDF, OTHER)");
        return NULL;
    }
    if (read_offsets(cls, ITEM_FIELDS, NITEM, found) < 0)
        return NULL;
    memcpy(item_offsets, found, sizeof item_offsets);
    PyObject **targets[] = {&k_text, &k_image, &k_pdf, &k_other};
    for (int i = 0; i < 4; i++) {
        PyObject *kind = PyTuple_GET_ITEM(kinds, i);
        Py_INCREF(kind);
        Py_XSETREF(*targets[i], kind);
    }
    PyObject **rest[] = {&unchecked, &image_mimes, &mime_cache, &normal_mime,
                         &heads, &head_of, &bad_head, &shown_uri};
    for (int i = 0; i < 8; i++) {
        Py_INCREF(objs[i]);
        Py_XSETREF(*rest[i], objs[i]);
    }
    Py_INCREF(cls);
    Py_XSETREF(item_type, (PyTypeObject *)cls);
    Py_RETURN_NONE;
}

/* a new Item with these fields (references taken), or NULL */
static PyObject *
new_item(PyObject *kind, PyObject *text, PyObject *raw, PyObject *mime, PyObject *uri,
         PyObject *size, PyObject *tag, PyObject *declared)
{
    PyObject *item = item_type->tp_alloc(item_type, 0);
    if (item == NULL)
        return NULL;
    PyObject *values[NITEM];
    values[I_CLEAN] = unchecked;
    values[I_BLOCK] = Py_None;
    values[I_CACHE] = Py_None;
    values[I_DECLARED] = declared;
    values[I_KIND] = kind;
    values[I_MIME] = mime;
    values[I_RAW] = raw;
    values[I_SIZE] = size;
    values[I_TAG] = tag;
    values[I_TEXT] = text;
    values[I_URI] = uri;
    for (int field = 0; field < NITEM; field++) {
        Py_INCREF(values[field]);
        ITEM_SLOT(item, field) = values[field];
    }
    return item;
}

/* A new ToolResult with these fields, or NULL (an error set). The references to
 * source, texts, parsed and string are stolen, on failure too; a NULL among them is a
 * failure already raised. */
static PyObject *
new_result(PyObject *name, PyObject *id, PyObject *is_error, PyObject *source, PyObject *texts,
           PyObject *parsed, PyObject *string)
{
    PyObject *result = NULL;
    if (source != NULL && texts != NULL && parsed != NULL && string != NULL)
        result = result_type->tp_alloc(result_type, 0);
    if (result == NULL) {
        Py_XDECREF(source);
        Py_XDECREF(texts);
        Py_XDECREF(parsed);
        Py_XDECREF(string);
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
    Py_INCREF(no_structured);
    SLOT(result, STRUCTURED) = no_structured;
    SLOT(result, SOURCE) = source;
    SLOT(result, TEXTS) = texts;
    SLOT(result, PARSED) = parsed;
    SLOT(result, STRING) = string;
    return result;
}

/* By byte: the value of a base64 symbol, -1 for anything else; filled at import (the
 * alphabet check reads it without the GIL) */
static signed char symbol_values[256];

static void
fill_symbol_values(void)
{
    const char *symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(symbol_values, -1, sizeof symbol_values);
    for (int value = 0; symbols[value]; value++)
        symbol_values[(unsigned char)symbols[value]] = (signed char)value;
}

#define GIVE_UP ((PyObject *)1) /* not taken here: the caller parses in Python */

/* `_base64.look` on its fast path: *size and a new reference to the sniff (a MIME
 * type or None); 1, or 0 to give up, or -1 with an error set */
static int
look(PyObject *data, Py_ssize_t *size, PyObject **sniffed)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(data);
    if (length < 20 || length % 4)
        return 0;
    const Py_UCS1 *d = PyUnicode_1BYTE_DATA(data);
    /* the tail, as a strict decode of the last 4 symbols takes it, and canonical */
    Py_ssize_t decoded = length / 4 * 3;
    if (d[length - 1] != '=') {
        for (int i = 1; i <= 4; i++)
            if (symbol_values[d[length - i]] < 0)
                return 0;
    }
    else if (d[length - 2] == '=') {
        if (symbol_values[d[length - 4]] < 0 || symbol_values[d[length - 3]] < 0 ||
            symbol_values[d[length - 3]] & 0x0F)
            return 0;
        decoded -= 2;
    }
    else {
        if (symbol_values[d[length - 4]] < 0 || symbol_values[d[length - 3]] < 0 ||
            symbol_values[d[length - 2]] < 0 || symbol_values[d[length - 2]] & 0x03)
            return 0;
        decoded -= 1;
    }
    PyObject *head = PyUnicode_Substring(data, 0, 16);
    if (head == NULL)
        return -1;
    PyObject *found = PyDict_GetItemWithError(heads, head); /* borrowed */
    if (found != NULL)
        Py_INCREF(found);
    else if (PyErr_Occurred()) {
        Py_DECREF(head);
        return -1;
    }
    else {
        found = PyObject_CallOneArg(head_of, head); /* decodes and keeps the head */
        if (found == NULL) {
            Py_DECREF(head);
            return -1;
        }
    }
    Py_DECREF(head);
    if (found == bad_head) {
        Py_DECREF(found);
        return 0;
    }
    *size = decoded;
    *sniffed = found;
    return 1;
}

/* the item of a base64 payload, as `_items.blob` makes it; GIVE_UP, or NULL on error */
static PyObject *
blob(PyObject *kind, PyObject *data, PyObject *mime, PyObject *uri)
{
    Py_ssize_t decoded;
    PyObject *sniffed = NULL, *item = NULL, *size = NULL, *text = NULL, *shown_at = NULL;
    int seen = look(data, &decoded, &sniffed);
    if (seen <= 0)
        return seen < 0 ? NULL : GIVE_UP;
    int is_resource = kind == s_resource;
    PyObject *shown = PyUnicode_GET_LENGTH(mime) ? mime : s_octet;
    if (is_resource && PyUnicode_Tailmatch(mime, s_text_prefix, 0, PY_SSIZE_T_MAX, -1) == 1) {
        Py_DECREF(sniffed);
        return GIVE_UP; /* a text resource: decoded to its text, in Python */
    }
    PyObject *item_kind = k_other;
    if (kind == s_image ||
        (is_resource && PyUnicode_Tailmatch(mime, s_image_prefix, 0, PY_SSIZE_T_MAX, -1) == 1)) {
        int known = sniffed != Py_None ? PySet_Contains(image_mimes, sniffed) : 0;
        if (known < 0)
            goto done;
        if (known) {
            item_kind = k_image;
            mime = sniffed; /* the bytes decide */
        }
    }
    else if (kind != s_audio && sniffed != Py_None &&
             PyUnicode_Compare(mime, s_pdf) == 0 && PyUnicode_Compare(sniffed, s_pdf) == 0) {
        item_kind = k_pdf;
    }
    size = PyLong_FromSsize_t(decoded);
    if (size == NULL)
        goto done;
    PyObject *named = item_kind == k_other ? shown : mime;
    if (PyUnicode_GET_LENGTH(uri)) {
        shown_at = PyObject_CallOneArg(shown_uri, uri);
        if (shown_at == NULL)
            goto done;
        text = PyUnicode_FromFormat("[%U] %U <%U> (%zd bytes)", kind, named, shown_at, decoded);
    }
    else
        text = PyUnicode_FromFormat("[%U] %U (%zd bytes)", kind, named, decoded);
    if (text == NULL)
        goto done;
    if (item_kind == k_other)
        item = new_item(k_other, text, s_empty, shown, uri, size, s_empty, s_empty);
    else
        item = new_item(item_kind, text, data, mime, uri, size, kind, shown);
done:
    Py_XDECREF(shown_at);
    Py_XDECREF(text);
    Py_XDECREF(size);
    Py_DECREF(sniffed);
    return item;
}

/* an exact, ready ASCII str value of dict d under key, or NULL (absent, or not one) */
static PyObject *
ascii_value(PyObject *d, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(d, key);
    if (value == NULL || !PyUnicode_CheckExact(value) || !is_ascii(value))
        return NULL;
    return value;
}

/* the normalised MIME type (new reference), or NULL on error */
static PyObject *
normal(PyObject *mime)
{
    PyObject *found = PyDict_GetItemWithError(mime_cache, mime);
    if (found != NULL && PyUnicode_Check(found) && PyUnicode_GET_LENGTH(found)) {
        Py_INCREF(found);
        return found;
    }
    if (PyErr_Occurred())
        return NULL;
    return PyObject_CallOneArg(normal_mime, mime);
}

/* `_result._plain_item` for one item: 1 with new references in *frozen and *item, 0 to
 * give up, -1 on error */
static int
plain_item(PyObject *raw, PyObject **frozen, PyObject **item)
{
    if (!PyDict_CheckExact(raw))
        return 0;
    PyObject *kind = PyDict_GetItemWithError(raw, key_type);
    if (kind == NULL || !PyUnicode_CheckExact(kind))
        return PyErr_Occurred() ? -1 : 0;
    Py_ssize_t fields = PyDict_GET_SIZE(raw);
    if (PyUnicode_Compare(kind, key_text) == 0) {
        PyObject *text = fields == 2 ? ascii_value(raw, key_text) : NULL;
        if (text == NULL)
            return PyErr_Occurred() ? -1 : 0;
        *item = new_item(k_text, text, s_empty, s_empty, s_empty, zero, s_empty,
                         s_empty);
        if (*item == NULL)
            return -1;
        Py_INCREF(text);
        *frozen = text; /* the text stands for its item */
        return 1;
    }
    PyObject *as_kind, *data, *mime, *uri = s_empty, *resource = NULL;
    if (PyUnicode_Compare(kind, s_image) == 0 || PyUnicode_Compare(kind, s_audio) == 0) {
        as_kind = PyUnicode_Compare(kind, s_image) == 0 ? s_image : s_audio;
        if (fields != 3 || !(data = ascii_value(raw, s_data)) ||
            !(mime = ascii_value(raw, s_mime_type)))
            return PyErr_Occurred() ? -1 : 0;
    }
    else if (PyUnicode_Compare(kind, s_resource) == 0 && fields == 2) {
        as_kind = s_resource;
        resource = PyDict_GetItemWithError(raw, s_resource_key);
        if (resource == NULL || !PyDict_CheckExact(resource) || PyDict_GET_SIZE(resource) != 3 ||
            !(data = ascii_value(resource, s_blob)) ||
            !(mime = ascii_value(resource, s_mime_type)) || !(uri = ascii_value(resource, s_uri)))
            return PyErr_Occurred() ? -1 : 0;
    }
    else
        return 0;
    /* hold what was read: the calls below run Python code */
    Py_INCREF(data);
    Py_INCREF(mime);
    Py_INCREF(uri);
    Py_XINCREF(resource);
    int taken = -1;
    PyObject *normalised = normal(mime), *copy = NULL, *inner = NULL;
    if (normalised == NULL)
        goto done;
    *item = blob(as_kind, data, normalised, uri);
    if (*item == NULL)
        goto done;
    if (*item == GIVE_UP) {
        taken = 0;
        goto done;
    }
    copy = PyDict_Copy(raw);
    if (copy == NULL)
        goto drop;
    if (resource != NULL) {
        PyObject *resource_copy = PyDict_Copy(resource);
        if (resource_copy == NULL)
            goto drop;
        inner = PyDictProxy_New(resource_copy);
        Py_DECREF(resource_copy);
        if (inner == NULL || PyDict_SetItem(copy, s_resource_key, inner) < 0)
            goto drop;
    }
    *frozen = PyDictProxy_New(copy);
    if (*frozen == NULL)
        goto drop;
    taken = 1;
    goto done;
drop:
    Py_CLEAR(*item);
done:
    Py_XDECREF(inner);
    Py_XDECREF(copy);
    Py_XDECREF(normalised);
    Py_DECREF(data);
    Py_DECREF(mime);
    Py_DECREF(uri);
    Py_XDECREF(resource);
    return taken;
}

/* The finished result of content whose items from `start` on are plain texts or media
 * (`texts`: the texts before start); GIVE_UP, or NULL on error. */
static PyObject *
mixed(PyObject *content, Py_ssize_t start, PyObject *texts, PyObject *name, PyObject *id,
      PyObject *is_error)
{
    PyObject *frozen_items = PySequence_List(texts), *items = PyList_New(0), *strings = NULL;
    PyObject *answer = NULL;
    if (frozen_items == NULL || items == NULL)
        goto done;
    strings = PySequence_List(texts);
    if (strings == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(texts); i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        PyObject *item = new_item(k_text, text, s_empty, s_empty, s_empty, zero,
                                  s_empty, s_empty);
        if (item == NULL || PyList_Append(items, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
    }
    for (Py_ssize_t i = start; i < PyList_GET_SIZE(content); i++) {
        PyObject *raw = PyList_GET_ITEM(content, i), *frozen, *item;
        Py_INCREF(raw);
        int taken = plain_item(raw, &frozen, &item);
        Py_DECREF(raw);
        if (taken <= 0) {
            if (taken == 0)
                answer = GIVE_UP;
            goto done;
        }
        int failed = PyList_Append(frozen_items, frozen) < 0 || PyList_Append(items, item) < 0 ||
                     PyList_Append(strings, ITEM_SLOT(item, I_TEXT)) < 0;
        Py_DECREF(frozen);
        Py_DECREF(item);
        if (failed)
            goto done;
    }
    PyObject *string = PyUnicode_Join(newline, strings);
    PyObject *source = string != NULL ? PyList_AsTuple(frozen_items) : NULL;
    PyObject *parsed = source != NULL ? PyList_AsTuple(items) : NULL;
    Py_INCREF(Py_None); /* the plain texts: a media item is there, not every item is text */
    answer = new_result(name, id, is_error, source, Py_None, parsed, string);
done:
    Py_XDECREF(frozen_items);
    Py_XDECREF(items);
    Py_XDECREF(strings);
    return answer;
}

static PyObject *
all_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *obj, *id, *name, *is_error, *content, *texts, *item;

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
            /* media or other items after the texts: parsed here where they are plain,
             * else by the caller from this item on */
            Py_DECREF(item);
            PyObject *done = item_type != NULL ? mixed(content, i, texts, name, id, is_error)
                                               : GIVE_UP;
            Py_DECREF(content);
            if (done == GIVE_UP)
                return texts;
            Py_DECREF(texts);
            return done;
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
    Py_INCREF(texts); /* private, never changed: the source and the plain texts */
    Py_INCREF(Py_None); /* the items: made on first need */
    return new_result(name, id, is_error, texts, texts, Py_None, string);

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
#define ALONE_FROM (64 * 1024) /* from this many symbols the GIL is let go meanwhile */

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
        if (symbol_values[data[i]] < 0)
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
    /* a large payload lets other threads run (data is immutable, held by the caller) */
    PyThreadState *saved = end >= ALONE_FROM ? PyEval_SaveThread() : NULL;
    int ok = in_alphabet(bytes, end, kernel);
    if (saved != NULL)
        PyEval_RestoreThread(saved);
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
    /* as in alphabet(); the url is not shared yet */
    PyThreadState *saved = size >= ALONE_FROM ? PyEval_SaveThread() : NULL;
    for (Py_ssize_t at = 0; at < size && ok; at += SPAN) {
        Py_ssize_t span = size - at < SPAN ? size - at : SPAN;
        memcpy(out + at, bytes + at, span);
        if (at < end)
            ok = in_alphabet(out + at, (end - at < span ? end - at : span), AUTO);
    }
    if (saved != NULL)
        PyEval_RestoreThread(saved);
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
     "non-text item follows them, or None (see ToolResult.from_mcp)."},
    {"bind_items", bind_items, METH_VARARGS,
     "bind_items(Item, kinds, unchecked, image_mimes, mime_cache, normal_mime, heads, head_of,"
     " bad_head, shown_uri)\n--\n\n"
     "Read the slot offsets of Item and keep what all_text() needs to parse media items."},
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
    zero = PyLong_FromLong(0);
    s_image = PyUnicode_InternFromString("image");
    s_audio = PyUnicode_InternFromString("audio");
    s_resource = PyUnicode_InternFromString("resource");
    s_data = PyUnicode_InternFromString("data");
    s_mime_type = PyUnicode_InternFromString("mimeType");
    s_blob = PyUnicode_InternFromString("blob");
    s_uri = PyUnicode_InternFromString("uri");
    s_resource_key = s_resource;
    s_octet = PyUnicode_InternFromString("application/octet-stream");
    s_pdf = PyUnicode_InternFromString("application/pdf");
    s_empty = PyUnicode_InternFromString("");
    s_text_prefix = PyUnicode_InternFromString("text/");
    s_image_prefix = PyUnicode_InternFromString("image/");
    if (!zero || !s_image || !s_audio || !s_resource || !s_data || !s_mime_type || !s_blob || !s_uri ||
        !s_octet || !s_pdf || !s_empty || !s_text_prefix || !s_image_prefix)
        return NULL;
    fill_symbol_values();
#ifdef NIBBLES
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    return PyModule_Create(&module_def);
}
