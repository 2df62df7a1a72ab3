"""Lesson files: the format, the loader and validator, and the bundled course."""
