"""Pieces every room of the grader shares: the records of a finding, reading cells, math."""
