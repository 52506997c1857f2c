"""A score shown beside the threshold it is judged against, with enough digits that the comparison reads true: a
score of 0.0996 against 0.10 reads "0.0996 < 0.10", never "0.10 < 0.10"."""

from __future__ import annotations


def score_and_threshold(score: float, threshold: float, digits: int = 2) -> tuple[str, str]:
    """`score` and `threshold` as text, two decimals unless that would show two different numbers as one."""
    for shown in range(digits, 7):
        a, b = f"{score:.{shown}f}", f"{threshold:.{shown}f}"
        if (a != b) or score == threshold:
            return a, f"{threshold:.{digits}f}" if float(f"{threshold:.{digits}f}") == threshold else b
    return f"{score:.6f}", f"{threshold:.6f}"
