"""Exports: the run's files in the shapes other tools read."""
