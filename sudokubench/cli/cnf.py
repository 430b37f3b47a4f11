"""Commands: filled in by their feature (see cli/__init__.py)."""
