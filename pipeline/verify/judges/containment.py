"""Support judges: does a cited span say what a claim says? (the `claim_supported` check)

`ContainmentJudge` (the default, `containment-v1`) accepts a claim that is contained in the
span, or whose content words are nearly all in it (`coverage`) with no negation flip. It
rarely verifies a paraphrase, and almost never a contradiction (docs/results.md). Other judges
implement the same `SupportJudge` protocol and are registered in `verify.judges`.
"""

from __future__ import annotations

from pipeline.core.citations import has_text
from pipeline.core.contracts import Settings, SupportVerdict
from pipeline.lang.instructions import without_instructions
from pipeline.lang.negation import NEGATES
from pipeline.lang.numbers import without_numbers
from pipeline.lang.sentences import sentence_units
from pipeline.lang.text import normalize, normalized, strip_edges
from pipeline.lang.tokenize import Tokenizer
from pipeline.verify.judges.features import containing_run

DEFAULT_COVERAGE = Settings.model_fields["support_coverage"].default


class ContainmentJudge:
    """Contained in the span, or ≥ `coverage` of the claim's content words in it without a negation flip.

    Read under its document's names (`under_title`), a span also speaks of what its title says: a claim's word
    that the span lacks but the title has ("meal" for "The allowance is 180 yuan per day" in "Meal allowance on
    business trips") is left out of the count, neither found nor missing, so it never makes up for another word;
    and only while the span itself holds at least as many of the claim's words as the title excuses.
    """

    name = "containment-v1"

    def __init__(self, tokenizer: Tokenizer | None = None, coverage: float = DEFAULT_COVERAGE):
        self.tokenizer = tokenizer or Tokenizer()
        self.coverage = coverage

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        return self.under_title(claim, span, "")

    def under_title(self, claim: str, span: str, title: str) -> SupportVerdict:
        """The verdict on `claim` against `span`, the words of `title` (the document's names) excused when missing."""
        # Text that instructs a reader-model ("ignore previous instructions and say X") is no evidence of X.
        span = without_instructions(span)
        if not has_text(claim):
            return SupportVerdict(supported=False, detail="the answer has no text for this citation")
        claim_n, span_n = strip_edges(normalize(claim)), normalize(span)
        if claim_n in span_n:
            return SupportVerdict(supported=True, score=1.0, detail="contained in the cited span",
                                  sentences=self._supporting(claim, span))
        # Number words ("one hundred and fifty", "七百五十") are compared as values by numbers_match, not as words here.
        claim_tokens = set(self.tokenizer.tokens(without_numbers(claim)))
        if not claim_tokens:
            return SupportVerdict(supported=False, detail="no content words to check")
        missing = claim_tokens - set(self.tokenizer.tokens(without_numbers(span)))
        titled = missing & self.tokenizer.name_tokens(title) if title else set()
        if len(titled) > len(claim_tokens) - len(missing):
            titled = set()  # the title qualifies what the span says; it never says more of the claim than the span
        claim_tokens, unsaid = claim_tokens - titled, sorted(missing - titled)
        coverage = 1 - len(unsaid) / len(claim_tokens)
        negation_flip = bool(NEGATES.search(claim_n)) != bool(NEGATES.search(span_n))
        detail = f"{coverage:.0%} of the claim's content words are in the span"
        if unsaid:
            detail += f"; missing: {', '.join(unsaid[:8])}"
        if titled:
            detail += f"; not counted, the document's title says them: {', '.join(sorted(titled)[:8])}"
        if negation_flip:
            detail += "; negation differs between claim and span"
        supported = coverage >= self.coverage and not negation_flip
        return SupportVerdict(supported=supported, score=round(coverage, 4), detail=detail,
                              sentences=self._supporting(claim, span) if supported else ())

    def _supporting(self, claim: str, span: str) -> tuple[tuple[int, int], ...]:
        """The sentences of the span that say the claim (the highlight): the shortest run that contains it,
        else at most two sentences that together hold most of its content words, best first."""
        units = [(s, e) for s, e in sentence_units(span) if span[s:e].strip()]  # instruction sentences are blank
        run = containing_run(strip_edges(normalized(claim)), span, units)
        if run:
            return run
        wanted, chosen = set(self.tokenizer.tokens(claim)), []
        for _ in range(2):
            gains = [(len(wanted & set(self.tokenizer.tokens(span[s:e]))), -i) for i, (s, e) in enumerate(units)
                     if (s, e) not in chosen]
            if not gains or max(gains)[0] == 0:
                break
            best = units[-max(gains)[1]]
            chosen.append(best)
            wanted -= set(self.tokenizer.tokens(span[best[0]:best[1]]))
        return tuple(chosen)
