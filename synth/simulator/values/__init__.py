"""Argument values from a parameter's name, schema and description."""
