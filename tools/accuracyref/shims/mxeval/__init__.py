"""A stand-in for mxeval (see execution)."""
