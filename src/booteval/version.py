"""booteval's version (one place: the package, its reports and its command line read it)."""

__version__ = "0.1.0"
