from collections.abc import Callable
from typing import Any

from ._result import ToolResult

def bind(
    cls: type[ToolResult], complete: str, no_structured: tuple[Any, str | None], /
) -> None: ...
def all_text(obj: dict[str, Any], id: object, name: object, /) -> ToolResult | list[str] | None: ...
def alphabet(data: str, end: int, kernel: int = 0, /) -> bool: ...
def kernels() -> list[int]: ...
def data_url(prefix: str, data: str, end: int, /) -> str | None: ...
def bind_items(
    cls: type[Any],
    kinds: tuple[int, int, int, int],
    unchecked: object,
    image_mimes: frozenset[str],
    mime_cache: dict[str, str],
    normal_mime: Callable[[str], str],
    heads: dict[str, Any],
    head_of: Callable[[str], Any],
    bad_head: object,
    shown_uri: Callable[[str], str],
    /,
) -> None: ...
