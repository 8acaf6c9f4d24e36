"""The one error a malformed model file raises."""

__all__ = ["ModelFileError"]


class ModelFileError(ValueError):
    """A ``.lucid`` file that cannot be read: damaged, forged, too new, or not a model file.

    The message says what is wrong. Loading raises nothing else for a bad file (a missing or
    unreadable path still raises the usual ``OSError``).
    """
