"""Keeping student code away from what it must not see or touch: jail, sandbox, kernel homes."""
