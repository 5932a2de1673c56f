"""Whole-system reports built on the stages: the total bill, acceptance, the ch8.3 example."""
