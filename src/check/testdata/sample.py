"""Inventory helpers.

A module docstring that spans
several lines, with 'quotes' and "doubles".
"""

import dataclasses
from typing import Any  # trailing comment

DEFAULTS = {
    "name": "widget",
    "sizes": [1, 2, 3],
    "nested": {"a": (1, 2), "b": None},
}


def log_calls(func):
    '''Decorator that logs calls.'''

    def wrapper(*args, **kwargs):
        print(f"calling {func.__name__} with {args!r} and {kwargs}")
        return func(*args, **kwargs)

    return wrapper


@dataclasses.dataclass
class Item:
    """One stock item.

    Attributes are plain data.
    """

    name: str
    price: float = 0.0
    tags: list = dataclasses.field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.price:.2f})"

    @log_calls
    def discounted(self, percent: float) -> "Item":
        factor = (
            1
            - percent / 100
        )
        return Item(self.name, self.price * factor, list(self.tags))


def total(items: list[Item], extra: dict[str, Any] | None = None) -> float:
    if not items:
        return 0.0
    elif extra:
        bonus = sum(
            value for value in extra.values() if isinstance(value, (int, float))
        )
    else:
        bonus = 0
    return sum(i.price for i in items) + bonus


if __name__ == "__main__":
    stock = [Item("a", 1.5), Item("b", 2.25, ["x"])]
    print(total(stock, {"tip": 1}))
