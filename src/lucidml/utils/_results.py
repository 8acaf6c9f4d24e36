"""A named tuple that also carries further results as attributes, so that it unpacks to its fields only."""

__all__ = ["ExtendedTuple"]


class ExtendedTuple:
    """Mix in before a ``typing.NamedTuple``: ``Result(a, b, extra=...)`` unpacks as ``a, b``, with ``.extra`` kept.

    The extra values live in the instance ``__dict__`` (the named tuple has none of its own), so
    they are copied and pickled with the tuple, and the repr shows them after the fields.
    """

    def __new__(cls, *fields, **extras):
        self = super().__new__(cls, *fields)
        self.__dict__.update(extras)
        return self

    def __repr__(self):
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        extras = "".join(f", {name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({fields}{extras})"
