"""Evaluation: the frozen seed scenarios and public-data benchmarks (`python -m pipeline eval`)."""
