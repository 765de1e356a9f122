from collections.abc import Callable
from typing import Any

def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any: ...
