"""Keeping student code away from what it must not see or touch: bwrap, kernels, kernel homes."""
