"""A unit run on to a following unit of its source that holds what it lacks: the value a how-much question asks for
("… receive a daily meal allowance. It is paid … The allowance is 180 yuan per day"), the default a setting's entry
states ("RequiredRSASize Specifies …" through "The default is 1024 bits."). The answer stage extends its choice so,
and a form's check asks whether a unit would hold the asked value once run on."""

from __future__ import annotations

from collections.abc import Callable

from pipeline.lang.questions import VALUE_TYPES, found_types, new_numerals, states_count, wanted_types
from pipeline.text.units import Unit, joined, units_of

PROSE_KINDS = frozenset({"sentence", "item"})  # the units of running prose (not a row, a command, a heading, a list)
VALUE_NEIGHBOURS = 2  # how many following units may hold the value the best unit lacks
DEFAULT_REACH = 6  # how many following units of its paragraph may state the default the chosen unit does not


def run_on(best: Unit, reach: int, holds: Callable[[Unit], bool], stops: Callable[[Unit], bool]) -> Unit:
    """`best` joined with the first of the next `reach` units of its source that `holds` what it lacks, unless a unit
    that `stops` the run comes first; `best` itself when none does."""
    units = units_of(best.source)
    position = next((i for i, u in enumerate(units) if u.start_line == best.start_line and u.quote == best.quote), None)
    if position is None:
        return best
    for unit in units[position + 1 : position + 1 + reach]:
        if stops(unit):
            break
        if holds(unit):
            return joined(best, unit)
    return best


def with_value(best: Unit, question: str) -> Unit:
    """The best unit, extended to a following unit of its source that holds the value it lacks.

    A question asking how much or when is often answered by a sentence that names the thing with
    the amount in the next one ("… receive a daily meal allowance. It is paid … The allowance is
    180 yuan per day"): the scorer picks the naming sentence, the answer then runs to the value.
    """
    wanted = [t for t in wanted_types(question) if t in VALUE_TYPES]
    if (not wanted or best.kind in ("row", "code", "list", "span") or new_numerals(question, best.quote)
            or states_count(question, best.quote)):
        return best
    return run_on(best, VALUE_NEIGHBOURS,
                  holds=lambda u: new_numerals(question, u.quote) and any(t in found_types(u.quote) for t in wanted),
                  stops=lambda u: u.kind == "row" or u.end_line < best.end_line)


def with_default(best: Unit, question: str) -> Unit:
    """Asked for a setting's default, the unit that says what the setting is runs on to the sentence of its paragraph
    that states the default ("RequiredRSASize Specifies the minimum RSA key size …" through "The default is 1024
    bits."): an entry gives the default apart from what the setting does."""
    if best.kind not in PROSE_KINDS or "default" not in wanted_types(question) or "default" in found_types(best.quote):
        return best
    blank = {line.number for line in best.source.lines if not line.text.strip()}
    return run_on(best, DEFAULT_REACH, holds=lambda u: "default" in found_types(u.quote),
                  stops=lambda u: (u.kind not in PROSE_KINDS or u.end_line < best.end_line
                                   or any(best.end_line < n < u.start_line for n in blank)))
