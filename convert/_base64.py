"""Base64 payload rules shared by every wire.

Two levels of checking, so that a payload nobody sends costs nothing:

- :func:`screen` is O(1): it looks at the length, the padding, the first 16
  and the last 4 symbols (the final quantum must be canonical: no set trailing
  bits). It runs when a ``ToolResult`` is built and gives the placeholder its
  size from the length alone. Only a payload with whitespace at its head or
  tail (a line-wrapped payload) is cleaned in full there.
- :func:`clean` is the strict check, O(payload): every symbol in the alphabet,
  whitespace stripped, padding added. It runs on the first native use of a
  payload and is remembered by the item. Two methods give the same verdict on
  every input: ``translate`` (the standard library: ``bytes.translate`` over
  64 KB chunks, no decoding) and, where the ``pybase64`` package is installed
  (the ``speed`` extra), ``pybase64`` (its SIMD decoder in strict mode over
  512 KB chunks, each decoded chunk dropped at once; in one call where the caller
  copies the payload next, see ``copied``). Memory stays flat either way, or
  below the copy. :func:`use` picks one (by default, on the first check, the
  fastest installed); :func:`methods` lists those installed.
- The final quantum is canonical (the bits a short one leaves over are zero):
  :func:`_canonical_end` is the one place that says so, for the screen, the
  look and the strict check alike.

The conversion paths pass the cleaned string through as the same object, or
copy it once into a ``data:`` URL.
"""

from __future__ import annotations

import binascii
from typing import Any, Protocol

__all__ = [
    "clean",
    "clean_translate",
    "data_url",
    "decoded_size",
    "encoded_length",
    "look",
    "method",
    "methods",
    "screen",
    "sniff",
    "use",
]

_SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ALPHABET = _SYMBOLS.encode("ascii")
_VALUE = {symbol: value for value, symbol in enumerate(_SYMBOLS)}
_WHITESPACE = " \n\r\t\f\v"
_WHITESPACE_BYTES = _WHITESPACE.encode("ascii")
_DROP_WHITESPACE = dict.fromkeys(map(ord, _WHITESPACE))
_CHUNK = 64 * 1024
# pybase64's chunk: whole quanta (a multiple of 4). pybase64 reads a str in place, but
# a chunk of one is a slice, which copies it: a payload of one chunk is decoded as it
# stands, so the chunk is as large as memory allows (the slice and its decoded bytes,
# 384 KB, dropped at once): a 200 KB image is checked in one call, without a copy
# (about half the time of 128 KB slices), and a 10 MB payload times as with 128 KB
_FAST_CHUNK = 512 * 1024

# Leading bytes of the media kinds a wire can carry natively, by their first three
# (WebP, ``RIFF....WEBP``, is checked apart: its signature has a gap).
_SIGNATURES = {
    b"\x89PN": ((b"\x89PNG\r\n\x1a\n",), "image/png"),
    b"\xff\xd8\xff": ((b"\xff\xd8\xff",), "image/jpeg"),
    b"GIF": ((b"GIF87a", b"GIF89a"), "image/gif"),
    b"%PD": ((b"%PDF-",), "application/pdf"),
}


def _core(data: str) -> int | None:
    """Return the number of symbols before the padding, or None when the shape is wrong.

    Checks the length, the padding and that the final quantum is canonical (the
    bits a short final quantum leaves over are zero), all in O(1).
    """
    size = len(data)
    pads = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    core = size - pads
    rest = core % 4
    if rest == 1 or (pads and (rest == 0 or rest + pads > 4)):
        return None
    if rest and not _canonical_end(data[core - 1], rest):
        return None
    return core


def _canonical_end(symbol: str, rest: int) -> bool:
    """Return True when ``symbol``, the last of a final quantum of ``rest`` symbols
    (2 or 3) before its padding, leaves no set bits over (the canonical encoding)."""
    value = _VALUE.get(symbol)
    return value is not None and not value & (0x0F if rest == 2 else 0x03)


def _in_alphabet(symbols: str) -> bool:
    return not symbols.encode("ascii").translate(None, _ALPHABET)


def screen(data: object) -> int | None:
    """Return the decoded size of a payload that looks like base64, else None (O(1)).

    A payload that passes may still hold a bad symbol in its middle; that is
    found by :func:`clean` when the payload is about to be sent. Whitespace
    inside a payload is counted out exactly when it makes the length no
    multiple of four or sits in the first 16 or last 4 symbols (the payload is
    then cleaned here); otherwise the size counts it as symbols.
    """
    if not isinstance(data, str) or not data.isascii():
        return None
    head, tail = data[:16], data[-4:]
    core = _core(data)
    if (
        core is None
        or not _in_alphabet(head[: min(16, core)])
        or not _in_alphabet(tail.rstrip("="))
    ):
        # A wrong shape or symbol at an end: broken, or whitespace inside (a
        # line-wrapped payload). Rare: check it all, once.
        if any(ws in head or ws in tail for ws in _WHITESPACE) or core is None:
            cleaned = clean(data)
            return None if cleaned is None else decoded_size(cleaned)
        return None
    return core * 3 // 4


def clean_translate(data: object, copied: bool = False) -> str | None:
    """Return ``data`` as padded base64 without whitespace, or None if it is not base64.

    Strict: every symbol must be in the alphabet and the final quantum canonical.
    The original object is returned unchanged when it is already clean, so a
    well-formed payload is never copied. This is the ``translate`` method, in
    the standard library alone; :func:`clean` runs the method in use. ``copied``
    (the caller copies the payload next) changes nothing here: the chunks are as
    fast as one pass.
    """
    if not isinstance(data, str) or not data.isascii():
        return None
    core = _core(data)
    end = len(data) if core is None else core
    for start in range(0, end, _CHUNK):
        left = data[start : min(start + _CHUNK, end)].encode("ascii").translate(None, _ALPHABET)
        if left:
            if left.translate(None, _WHITESPACE_BYTES + b"=") or not left.translate(None, b"="):
                return None  # a symbol outside the alphabet, or padding inside
            stripped = data.translate(_DROP_WHITESPACE)
            return clean_translate(stripped) if stripped else None
    if core is None:
        return None
    missing = -len(data) % 4  # padding left out (accepted, and added back)
    return data + "=" * missing if missing else data


def _clean_pybase64(data: object, copied: bool = False) -> str | None:
    """:func:`clean_translate`'s verdict, with ``pybase64``'s strict decoder for the
    alphabet of a well-formed payload (anything else is left to ``clean_translate``).

    ``copied``: the caller copies the payload next (into a ``data:`` URL), so the
    whole payload is decoded in one call, with no slice: its decoded bytes (three
    quarters of the payload) are dropped before the larger copy is made, and one call
    takes about two thirds of the time of the slices (each slice is a copy).
    """
    if type(data) is not str or not data.isascii():
        return clean_translate(data)
    core = _core(data)
    if core is None:
        return clean_translate(data)
    size = len(data)
    # Whole quanta: the payload itself where its padding is given in full (strict mode
    # takes it at the end), else up to the last whole quantum, the few symbols after it
    # checked apart. A payload of one chunk is given as it stands (no slice of it).
    whole = size if not size % 4 else core - core % 4
    decode = (_pybase64 or _import_pybase64()).b64decode
    step = size if copied and whole == size else _FAST_CHUNK
    try:
        for start in range(0, whole, step):
            end = min(start + step, whole)
            if end == size:
                decode(data if start == 0 else data[start:], validate=True)
                continue
            # Strict mode takes padding at a chunk's end; inside the payload it is an error.
            if data[end - 1] == "=":
                return clean_translate(data)
            decode(data[start:end], validate=True)
    except ValueError:  # binascii.Error: a symbol outside the alphabet (or whitespace)
        return clean_translate(data)
    if whole < core and not _in_alphabet(data[whole:core]):
        return clean_translate(data)
    missing = -len(data) % 4  # padding left out (accepted, and added back)
    return data + "=" * missing if missing else data


_pybase64: Any = None  # the module once imported (False: not installed)


def methods() -> tuple[str, ...]:
    """Return the names of the strict-check methods installed, fastest first.

    ``pybase64`` is imported here, on first need, so ``import toolwire.convert``
    does not pay for it.
    """
    if _pybase64 is None:
        _import_pybase64()
    return ("pybase64", "translate") if _pybase64 else ("translate",)


def _import_pybase64() -> Any:
    """Import pybase64 once; return it (False: not installed)."""
    global _pybase64
    try:
        import pybase64
    except ImportError:  # the speed extra is not installed: the standard library alone
        _pybase64 = False
    else:
        _pybase64 = pybase64
    return _pybase64


class _Check(Protocol):
    """A strict-check method: ``(data, copied=False) -> clean base64 or None``."""

    def __call__(self, data: object, copied: bool = False, /) -> str | None: ...


_METHODS: dict[str, _Check] = {
    "pybase64": _clean_pybase64,
    "translate": clean_translate,
}
_method = ""


def use(name: str | None = None) -> str:
    """Make :func:`clean` run the method ``name`` (None: the fastest installed); return it.

    :raises ValueError: for a method that is not installed (see :func:`methods`).
    """
    global clean, _method
    installed = methods()
    chosen = installed[0] if name is None else name
    if chosen not in installed:
        raise ValueError(f"no strict-check method {chosen!r}; installed: {', '.join(installed)}")
    clean = _METHODS[chosen]
    _method = chosen
    return chosen


def method() -> str:
    """Return the name of the method :func:`clean` runs (picking it if none is yet)."""
    return _method or use()


def _clean_first(data: object, copied: bool = False) -> str | None:
    use()  # the first strict check picks the fastest method installed
    return clean(data, copied)


#: ``clean(data, copied=False)``: ``data`` as padded base64 without whitespace, or None
#: if it is not base64 (the method in use; :func:`clean_translate` states the rules).
#: ``copied``: the caller copies the payload next, so memory may hold its decoded
#: bytes at once (they go before the copy is made).
clean: _Check = _clean_first


def decoded_size(data: str) -> int:
    """Return the number of bytes a clean ``data`` decodes to, without decoding it."""
    size = len(data) // 4 * 3
    if data.endswith("=="):
        return size - 2
    if data.endswith("="):
        return size - 1
    return size


def decode_range(data: str, start: int, count: int) -> bytes:
    """Return up to ``count`` bytes of the clean base64 ``data`` from byte ``start``,
    decoding only the quanta that hold them (``b""`` where they do not decode)."""
    first = max(0, start // 3 * 4)
    last = -(-(start + count) // 3) * 4
    try:
        chunk = _a2b(data[first:last])
    except binascii.Error:
        return b""
    skip = start - first // 4 * 3
    return chunk[skip : skip + count]


def decode(data: str) -> bytes:
    """Return the bytes of a whole clean base64 payload: with pybase64 where the
    ``speed`` extra installed it (several times faster on a large payload), else
    ``binascii``.

    :raises ValueError: (``binascii.Error``) for a payload that does not decode.
    """
    module = _import_pybase64() if _pybase64 is None else _pybase64
    return module.b64decode(data) if module else _a2b(data)


def encoded_length(size: int) -> int:
    """Return the length of the padded base64 of ``size`` bytes (a byte limit in symbols)."""
    return -(-size // 3) * 4


def sniff(data: str) -> str | None:
    """Return the MIME type the first bytes of a payload announce, if known."""
    head64 = data[:16]
    if not _in_alphabet(head64.rstrip("=")):  # a line-wrapped payload: skip whitespace
        head64 = data[:96].translate(_DROP_WHITESPACE)[:16]
    try:
        head = binascii.a2b_base64(head64)
    except binascii.Error:
        return None
    return _magic(head)


def _magic(head: bytes) -> str | None:
    """Return the MIME type the leading bytes ``head`` announce, if known."""
    known = _SIGNATURES.get(head[:3])
    if known is not None:
        return known[1] if head.startswith(known[0]) else None
    return "image/webp" if head[:4] == b"RIFF" and head[8:12] == b"WEBP" else None


def look(data: object) -> tuple[int | None, str | None]:
    """Return ``(screen(data), sniff(data))``, the sniff None when the screen fails (O(1)).

    The usual payload (whole quanta, at least 20 symbols) is read at its ends
    only: its first 16 symbols by a table of the heads seen (each checked by a
    strict decode once, which gives the leading bytes, and kept with their
    sniff), its last 4 by a strict decode, then the canonical final quantum.
    Anything else, or any end that fails, takes :func:`screen` and
    :func:`sniff` as they are.
    """
    if type(data) is str and data.isascii():
        size = len(data)
        if size >= 20 and not size % 4:
            head64 = data[:16]
            sniffed = _HEADS.get(head64, _ABSENT)
            if sniffed is _ABSENT:
                sniffed = _head(head64)
            if sniffed is not _BAD:
                try:
                    _a2b(data[-4:], strict_mode=True)
                except binascii.Error:
                    pass
                else:
                    if data[-1] != "=":
                        return size // 4 * 3, sniffed
                    if data[-2] == "=":  # two symbols in the final quantum
                        if _canonical_end(data[-3], 2):
                            return size // 4 * 3 - 2, sniffed
                    elif _canonical_end(data[-2], 3):
                        return size // 4 * 3 - 1, sniffed
    size_ = screen(data)
    return size_, None if size_ is None else sniff(data)  # type: ignore[arg-type]


_HEADS: dict[str, Any] = {}  # first 16 symbols -> their sniff (or _BAD); bounded
_HEADS_MAX = 1024
_BAD: Any = object()  # a head that is not 16 symbols of the alphabet
_ABSENT: Any = object()


def _head(head64: str) -> Any:
    """Return the sniff of a payload's first 16 symbols, or ``_BAD`` when they are
    not all in the alphabet (padding this early is :func:`screen`'s to judge).

    Kept in ``_HEADS``: payloads of a kind share their heads (a PNG's first 12
    bytes are its signature and the IHDR chunk's length). The table stops growing at
    ``_HEADS_MAX``; a race between threads can only store the same answer twice.
    """
    try:
        sniffed: Any = _magic(_a2b(head64, strict_mode=True)) if "=" not in head64 else _BAD
    except binascii.Error:
        sniffed = _BAD
    if len(_HEADS) < _HEADS_MAX:
        _HEADS[head64] = sniffed
    return sniffed


_a2b = binascii.a2b_base64


def data_url(mime: str, data: str) -> str:
    """Return a ``data:`` URL for a clean payload (the one copy of it a wire makes)."""
    return f"data:{mime};base64,{data}"
