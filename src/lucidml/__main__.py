"""``python -m lucidml`` is the ``lucidml`` command."""

from .cli import console_main

console_main()
