"""Generate: packed context → a proposed answer with citations (not yet trusted).

A generator is any callable `Context -> Proposal`. The default, `local-extractive-v1`, is an
exact-source extractive composer (seed 000, §45.4): it splits the packed evidence into units
(sentences across wrapped lines, list items, table rows; `text.units`), scores each with a
small learned model of meaning, words and expected answer type (`answer_model.py`), and
copies and cites the best unit — or abstains when the best unit's calibrated probability is
below the threshold (Settings.min_support, by default the model's own). Conflicts between
sibling sources are checked by the engine (verify.conflicts), not here.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from pipeline.core.contracts import Context, Decision, Proposal, ProposedCitation, decisions_note
from pipeline.core.memory import release_free_memory
from pipeline.generate.extractive.answer_forms import (
    definition_first,
    first_defining,
    rows_best_first,
    whole_list_first,
)
from pipeline.generate.extractive.answer_model import SCORER_EMBEDDER, WEIGHTS, AnswerModel, shipped_model
from pipeline.generate.extractive.scoring import UnitVectors, reader_text, scored_units
from pipeline.question.forms import Evidence, Refusal, answering_forms, keeping_forms
from pipeline.question.forms.answer_type import holds_value
from pipeline.question.forms.numbered_item import names_another
from pipeline.text.run_on import PROSE_KINDS, with_default, with_value
from pipeline.lang.forms import ANAPHOR, COUNTS_KINDS, DEMONSTRATIVE_OPENING, PERSON_PRONOUN, defined_term
from pipeline.lang.references import numbered_references
from pipeline.lang.questions import (
    ASKS_SEVERAL,
    asks,
    asks_procedure,
    is_keyword_query,
    wanted_types,
)
from pipeline.lang.sentences import sentence_spans  # noqa: F401 (re-exported)
from pipeline.lang.tokenize import Tokenizer
from pipeline.text.tables import (
    asked_cells,
    asked_unit,
    named_row,
    names_column,
    row_cells,
)
from pipeline.text.units import (
    Unit,
    exact_between,
    heading_above,
    introduces,
    join_lines,
    joined,
    labels_code,
    opens_as_code,
    units_of,
    with_nested_lines,
)

Generator = Callable[[Context], Proposal]
PRODUCER = "local-extractive-v1"
# The calibrated answer probability below which the composer abstains (models/answer_model.json).
DEFAULT_MIN_SUPPORT = shipped_model().threshold


# What the reader was trained to read (prose sentences and items from SQuAD, CMRC and SciFact): a table row, a
# command or a heading is outside its training data, and the reader under-scores it (measured: docs/decisions.md).
READ_KINDS = PROSE_KINDS
READ_UNITS = 32  # how many of the scorer's best units the reader reads: the scorer is its pre-filter


def with_antecedent(best: Unit, question: str) -> Unit:
    """A who-question's answer that opens with a pronoun ("He appointed … and made Ralph the Timid earl") runs back
    over the sentence before it, which says who ("Edward the Confessor …") — the pair is a unit of its own; so does an
    answer whose subject is what the sentence before says ("This has consequences, since …"): alone it does not say
    what "This" is. First in its paragraph, such a sentence runs back over the code block right above it ("This
    command will create the missing folders …" under `npm init -w ./packages/a`)."""
    if best.kind != "sentence":
        return best
    opening = best.quote.lstrip()
    if DEMONSTRATIVE_OPENING.match(opening):
        before = _sentence_before(best)
        if before is not None:
            return joined(before, best)
        command = _command_above(best)
        if command is None:
            return best
        return Unit(best.source, command.start_line, best.end_line, exact_between(command, best), kind="code")
    if "who" not in wanted_types(question) or not PERSON_PRONOUN.match(opening):
        return best
    pair = [u for u in units_of(best.source) if u.kind == "sentence" and u.end_line == best.end_line
            and u.start_line <= best.start_line and u.quote.endswith(best.quote) and len(u.quote) > len(best.quote)]
    return min(pair, key=lambda u: len(u.quote), default=best)


def _sentence_before(unit: Unit) -> Unit | None:
    """The sentence of `unit`'s paragraph right before it (on its first line or the line above, no blank line
    between), or None."""
    head = unit.quote.split("\n")[0]
    line = next((line.text for line in unit.source.lines if line.number == unit.start_line), "")
    offset = line.find(head)
    candidates = []  # (its last line, where it ends on that line, the shortest first, the unit)
    for u in units_of(unit.source):
        if u.kind != "sentence" or u.quote in unit.quote or unit.quote in u.quote:
            continue
        tail = u.quote.split("\n")[-1]
        at = line.find(tail)
        if u.end_line == unit.start_line and 0 <= at and at + len(tail) <= offset:
            candidates.append((u.end_line, at, -len(u.quote), u))
        elif u.end_line == unit.start_line - 1 and offset == 0:
            candidates.append((u.end_line, 0, -len(u.quote), u))
    return max(candidates, key=lambda c: c[:3])[-1] if candidates else None


def _command_above(unit: Unit) -> Unit | None:
    """The code block that ends right above `unit`, only empty lines between, with the sentence that introduces it
    when it has one; None when what is above is not code."""
    lines_above = [line for line in unit.source.lines if line.number < unit.start_line]
    last_text = next((line.number for line in reversed(lines_above) if line.text.strip()), None)
    blocks = [u for u in units_of(unit.source) if u.kind == "code" and u.end_line == last_text]
    return min(blocks, key=lambda u: u.start_line, default=None)


def with_what_follows(best: Unit, question: str = "") -> Unit:
    """A unit that announces a list or a command ("中文句子使用全角标点，例如：") answers together with it (a list item
    that announces its sub-items, with the lines nested under it); asked for several things, a sentence that only
    counts them ("操场的种类大约分成两种。") answers with the next sentence, which names them ("一种位于室内，一种位于室外。")."""
    if introduces(best) or labels_code(best):
        following = [u for u in units_of(best.source) if u.kind in ("list", "code") and u.start_line == best.start_line
                     and u.end_line > best.end_line and u.quote.startswith(best.quote)]
        if following:
            return max(following, key=lambda u: u.end_line)
        # "5. Remove the signature …:" says how in the sub-items under it ("- On macOS:" and its command)
        nested = with_nested_lines(best) if best.kind == "item" and introduces(best) else None
        return nested or best
    if best.kind != "sentence" or not ASKS_SEVERAL.search(question) or not COUNTS_KINDS.search(best.quote):
        return best
    units = [u for u in units_of(best.source) if u.kind == "sentence"]
    position = next((i for i, u in enumerate(units) if u.start_line == best.start_line and u.quote == best.quote), None)
    after = units[position + 1] if position is not None and position + 1 < len(units) else None
    if after is None or after.start_line > best.end_line + 1 or after.end_line < best.end_line:
        return best
    return joined(best, after)


def with_command_above(best: Unit, question: str) -> Unit:
    """A how-do-I question answered by the sentence that describes a command set right above it ("\\begin{turnpage}"
    over "Rotate a table or figure by 90 degrees …", a command reference) answers with the command."""
    if best.kind != "sentence" or not asks_procedure(question):
        return best
    described = [u for u in units_of(best.source) if u.kind == "code" and u.end_line == best.end_line
                 and u.start_line < best.start_line and u.quote.endswith(best.quote) and opens_as_code(u)]
    return min(described, key=lambda u: len(u.quote), default=best)


# A reference entry's heading that is a call: "### `clearTimeout(timeout)`", "#### load(path, mmap=False)".
_SIGNATURE = re.compile(r"^#{1,6}\s+`?[\w.$\[\]]+\([^)]*\)`?\s*$")


def signature_above(best: Unit, question: str) -> Unit | None:
    """For "How do I …?", the heading that names the call a reference entry's sentence describes ("### `clearTimeout(
    timeout)`" over "Cancels a `Timeout` object created by `setTimeout()`."): the sentence says what, its heading how.
    None when the sentence names the call itself, or the entry has no such heading in the evidence."""
    if best.kind not in READ_KINDS or not asks_procedure(question):
        return None
    heading = heading_above(best)
    if heading is None or not _SIGNATURE.match(heading.quote.strip()):
        return None
    name = heading.quote.strip().lstrip("#").strip().strip("`").split("(")[0]
    return None if name in best.quote else heading


def under_heading(label: Unit) -> Unit:
    """A label over an example ("Or an entire repository" over its code) as the reader reads it: under its section's
    heading ("Download files"), as a label line and its value are (`text.units`); alone it says too little to read."""
    if label.section or not labels_code(label):
        return label
    heading = heading_above(label)
    return replace(label, section=heading.quote.lstrip("#").strip()) if heading is not None else label


def sentences_inside(unit: Unit) -> list[Unit]:
    """The single sentences a several-sentence unit (a sentence with the one before it, a long list item) is made of,
    in reading order: the units of its source inside its lines and its text that hold no smaller such unit."""
    inside = [u for u in units_of(unit.source) if u.kind in READ_KINDS and len(u.quote) < len(unit.quote)
              and unit.start_line <= u.start_line and u.end_line <= unit.end_line and u.quote in unit.quote]
    return [u for u in inside if not any(v is not u and len(v.quote) < len(u.quote) and v.quote in u.quote
                                         and u.start_line <= v.start_line and v.end_line <= u.end_line for v in inside)]


class LocalExtractive:
    """The default producer: exact copies of packed evidence, cited; no generative model involved."""

    name = PRODUCER

    def __init__(self, tokenizer: Tokenizer | None = None, min_support: float | None = None, embedder=None,
                 model: AnswerModel | None = None, vectors: UnitVectors | None = None, reader=None,
                 reader_threshold: float | None = None, reach: int = READ_UNITS):
        self.tokenizer = tokenizer or Tokenizer()
        self.reach = reach
        # The reader (pipeline.models.reader) reads the question with the chosen unit: below its threshold the unit
        # does not answer, however many words it shares with the question. None: no such check.
        self.reader = reader
        self.reader_threshold = (reader.threshold("answer") if reader_threshold is None else reader_threshold
                                 ) if reader is not None else None
        self.model = model or shipped_model()
        self.min_support = self.model.threshold if min_support is None else min_support
        if embedder is None:  # the registered embedder whose vectors the scorer's weights were fitted over
            from pipeline.index.embedders import EMBEDDERS

            embedder = EMBEDDERS.create(SCORER_EMBEDDER)
        self.embedder = embedder
        self.vectors = vectors or UnitVectors(embedder)

    @property
    def models(self) -> dict[str, str]:
        """The models behind this composer's scores (the trace's components)."""
        out = {"scorer": f"answer-model ({WEIGHTS.name}, features over {self.embedder.name})"}
        if self.reader is not None:
            out["reader"] = self.reader.name
        return out

    def _narrowed(self, question: str, best: Unit) -> tuple[Unit, list[Decision]]:
        """The one sentence of a several-sentence unit (a long list item) that answers, when the reader says which: the
        answer quotes it, not its neighbours. A unit stays whole when a sentence of it opens with a pronoun ("They
        comprise …": a sentence with the one that says what it is about), when the sentence the reader prefers does not
        answer alone or leaves a word of the question to the others, and without a reader.

        A list the question does not ask for ("Who wrote the specification?" is not "What are the requirements?") is
        narrowed to an item or sentence that answers alone, or else read whole ("What can happen if …?" answered by
        every consequence it lists)."""
        whole_list = best.kind == "list" and not ASKS_SEVERAL.search(question)
        if self.reader is None or (best.kind not in READ_KINDS and not whole_list):
            return best, []
        inside = sentences_inside(best)
        # A sentence that opens with a pronoun may hold the answer about the sentence before it ("It in turn evolved
        # into Modern English." for "What was the language's final form?"), which the reader cannot see in it alone.
        if len(inside) < 2 or (not whole_list and any(ANAPHOR.match(u.quote.lstrip()) for u in inside[1:])):
            return best, []
        scores = [self._reader_score(question, unit) for unit in inside]
        top, naming = _best_part(question, inside, scores)
        part, part_score = inside[top], scores[top]
        alone = (part_score >= (self.reader_threshold or 0.0) and not ANAPHOR.match(part.quote.lstrip())
                 and not asks(part.quote) and not introduces(part)
                 and not self._drops_asked_words(question, part, inside))
        if alone:
            others = max(score for i, score in enumerate(scores) if i != top)
            return part, [Decision(by="reader", outcome="narrowed", reason="part_answers_alone", unit=part.marker(),
                                   score=round(part_score, 4), facts={"reader": self.reader.name, "others": f"{others:.2f}"}),
                          *naming]
        if not whole_list:
            return best, []
        return best, [Decision(by="reader", outcome="noted", reason="list_read_whole", unit=part.marker(),
                               score=round(part_score, 4))]

    def _reader_logit(self, question: str, unit: Unit) -> float:
        # One unit at a time: a batch's int8 activations are scaled together, so a logit would depend on its batch.
        logit = float(self.reader.logits("question", question, [reader_text(under_heading(unit))])[0])
        release_free_memory()
        return logit

    def _calibrated(self, logit: float) -> float:
        a, b = self.reader.record.calibration["question"]
        return 1.0 / (1.0 + math.exp(-(a * logit + b)))

    def _reader_score(self, question: str, unit: Unit) -> float:
        # One unit at a time, always: a batch's int8 activations are scaled together, so a score would depend on its
        # batch.
        # It reads the page as rendered: ":meth:`iter_lines() <Response.iter_lines>`" is "iter_lines()" to a person.
        score = float(self.reader.probabilities("question", question, [reader_text(unit)])[0])
        release_free_memory()  # the call's freed activations go back: the reader's resident cost stays its model's
        return score

    def _drops_asked_words(self, question: str, part: Unit, parts: list[Unit]) -> bool:
        """Does quoting `part` alone lose a word of the question that another part holds? ("… and what is their phone
        number?": the contact's sentence is cut at "St." and the phone number sits in the next one.) A sentence that
        announces a list is the items' context, not a part that could hold their answer."""
        asked = set(self.tokenizer.tokens(question)) - set(self.tokenizer.tokens(part.quote))
        return any(asked & set(self.tokenizer.tokens(other.quote)) for other in parts
                   if other is not part and not introduces(other))

    def for_corpus(self, corpus) -> LocalExtractive:
        """This composer bound to `corpus`: units that are whole chunks reuse its index-time vectors, and the
        vectors of the others are kept in its cache (`CorpusBound`)."""
        bound = copy.copy(self)
        bound.vectors = UnitVectors.for_corpus(self.embedder, corpus)
        return bound

    def _none_fits(self, scored: list, by: str, reason: str, **facts: str) -> Proposal:
        """An abstention: no scored unit passed the check of the question's form `by` (`reason`, its particulars
        `facts`); the best one is named."""
        score, best = scored[0].probability, scored[0].unit
        refused = Decision(by=by, outcome="abstained", reason=reason, unit=best.marker(), score=round(score, 4),
                           facts=facts)
        return self._abstained([refused], score=round(score, 4), threshold=self.min_support, best_unit=_shown(best))

    def _structural_match(self, context: Context, scored: list, by_key_alone: bool = True) -> tuple[Unit, Decision] | None:
        """Below the threshold, a unit whose form answers the question's form: a sentence that defines the term a
        "what does X mean?" asks about ('To "convey" a work means …'), or the table row and column it names.
        `by_key_alone=False` (the reader ranks): a row the question names only by its key (a table of names and values)
        does not answer below the threshold; the reader reads rows, and such answers were wrong or false on realdocs."""
        question = context.question
        term = defined_term(question)
        # definition_first has already put the unit that defines the term (if any) first
        defining = first_defining(term, scored[:1], context) if term else None
        if defining is not None:
            return defining.unit, Decision(by="definition", outcome="answered", reason="definition",
                                           unit=defining.unit.marker(), facts={"term": term})
        lookup = named_row(question, rows_best_first(context, scored), self.tokenizer.tokens)
        if lookup is None:
            return None
        row, key, columns = cast(Unit, lookup[0]), lookup[1], lookup[2]  # named_row returns one of the rows it is given
        if not holds_value(question, row):
            return None
        if not columns and not by_key_alone:
            return None
        unit = asked_unit(question)
        if unit and key.casefold() not in question.casefold():
            return row, Decision(by="table row", outcome="answered", reason="table_lookup_unit", unit=row.marker(),
                                 facts={**_row_facts(row, key, columns), "quantity": unit[0], "symbol": unit[1]})
        return row, Decision(by="table row", outcome="answered", reason="table_lookup" if columns else "table_lookup_key",
                             unit=row.marker(), facts=_row_facts(row, key, columns))

    def _whole_answer(self, context: Context) -> Proposal | None:
        """An answer the evidence's form gives before any unit is scored: each registered form that answers whole
        (`pipeline.question.forms.whole`), in registration order — a title block's particulars for "Who wrote this
        paper?", a document's summary for "What is this about?", the row a table comparison chose (a tie abstains)."""
        for form in answering_forms():
            whole = form.answer(context)
            if whole is None:
                continue
            fields = {"score": None, "threshold": self.min_support, "best_unit": _shown(whole.units[0])}
            if whole.decision.outcome == "abstained":
                return self._abstained([whole.decision], **fields)
            return self._answer(whole.units, [whole.decision], fields)
        return None

    def _gated(self, context: Context, scored: list, ranked: bool) -> list | Proposal:
        """The scored units that can answer the question's form, or the abstention saying none can: each registered
        form that checks (`pipeline.question.forms.keep`), in turn, keeps the units that pass it, and the first that
        refuses them all names the abstention. Where the reader ranks, only the checks it still needs run."""
        evidence = Evidence(context.sources, self.tokenizer, self.min_support)
        rows = scored
        for form in keeping_forms():
            if ranked and not form.with_reader:
                continue
            kept = form.keep(context.question, rows, evidence)
            if isinstance(kept, Refusal):
                return self._none_fits(rows, form.name, kept.reason, **kept.facts)
            rows = kept
        return rows

    def __call__(self, context: Context) -> Proposal:
        proposal = self._composed(context)
        if not proposal.row_cells:
            return proposal
        # The columns the question names: the Answer and Source panels mark their cells as the figures asked for.
        asked = [name for name, _ in proposal.row_cells if names_column(context.question, name)]
        return proposal.model_copy(update={"asked_columns": asked}) if asked else proposal

    def _composed(self, context: Context) -> Proposal:
        if not context.sources:
            return self._nothing("no_sources")
        if (whole := self._whole_answer(context)) is not None:
            return whole
        scored = scored_units(context, self.tokenizer, self.embedder, self.model, self.vectors,
                              self.reach if self.reader is not None else None)
        if not scored:
            return self._nothing("no_units")
        # The reader learnt from questions: it reads "Beijing lodging" against the policy that answers it at 0.09.
        keywords = context.reading.keywords if context.reading is not None else is_keyword_query(context.question)
        ranked = self.reader is not None and self.reader_threshold is not None and not keywords
        scored = self._gated(context, scored, ranked)
        if isinstance(scored, Proposal):
            return scored
        if ranked:
            return self._reader_ranked(context, scored)
        if self.reader is None or self.reader_threshold is None:
            return self._scorer_decides(context, scored, [])
        return self._scorer_decides(context, scored, [Decision(by="keywords", outcome="noted", reason="keywords",
                                                               facts={"reader": self.reader.name})])

    def _nothing(self, reason: str) -> Proposal:
        """An abstention before any unit is scored: no source, or no unit to quote in them."""
        return self._abstained([Decision(by="composer", outcome="abstained", reason=reason)])

    def _abstained(self, decisions: list[Decision], **fields) -> Proposal:
        """The composer's abstention: no unit answers, for the reasons its `decisions` give (rendered as the note)."""
        return Proposal(producer=self.name, abstain_reason="insufficient_evidence", decisions=decisions,
                        note=decisions_note(decisions), **fields)

    def _reader_ranked(self, context: Context, scored: list) -> Proposal:
        """The reader reads every candidate (the scorer's first `reach` units: the scorer is a pre-filter) with the
        question; the unit it reads most likely to answer is the answer when that probability reaches the threshold
        (the reader's record may combine its reading with the pre-filter's evidence: `Reader.answer_probability`)."""
        question, threshold = context.question, float(self.reader_threshold or 0.0)  # set whenever the reader ranks
        read = []
        for row in scored[: self.reach]:
            logit = self._reader_logit(question, row.unit)
            read.append((self.reader.answer_probability(logit, row.probability), logit, row))
        read.sort(key=lambda item: (item[0], item[2].probability), reverse=True)
        read, defining = self._defining_first(context, read)
        (best_score, _, best_row), runner = read[0], (read[1] if len(read) > 1 else None)
        best = best_row.unit
        fields = {
            "score": round(best_score, 4), "threshold": threshold, "best_unit": _shown(best),
            "runner_up": _shown(runner[2].unit) if runner else None,
            "runner_up_score": round(runner[0], 4) if runner else None,
            # The probability that decides (the reader's reading combined with the pre-filter's) is the reader's score.
            "reader": self.reader.name, "reader_score": round(best_score, 4), "reader_threshold": threshold,
        }
        reading = {"reader": self.reader.name, "read": str(len(read))}
        if best_score < threshold:
            found = self._structural_match(context, [row for *_, row in read], by_key_alone=False)
            if found is None:
                none = Decision(by="reader", outcome="abstained", reason="reader_finds_none", unit=best.marker(),
                                score=round(best_score, 4), threshold=threshold, facts=reading)
                return self._abstained([none], **fields)
            best, chosen = found
            below = Decision(by="reader", outcome="noted", reason="reader_below", unit=best_row.unit.marker(),
                             score=round(best_score, 4), threshold=threshold)
            return self._answer([best], [chosen, *defining, below], fields)
        decisions = [Decision(by="reader", outcome="answered", reason="reader_answers", unit=best.marker(),
                              score=round(best_score, 4), threshold=threshold, facts={**reading, "kind": best.kind})]
        if runner is not None:
            decisions.append(Decision(by="reader", outcome="noted", reason="runner_up", unit=runner[2].unit.marker(),
                                      score=round(runner[0], 4)))
        decisions += defining
        _, listed = whole_list_first(question, [best_row, *(row for *_, row in read[1:])], 0.0)
        if listed:
            best = next(row.unit for row in scored if row.unit.kind == "list" and row.unit.source.n == best.source.n
                        and row.unit.start_line <= best.start_line and best.end_line <= row.unit.end_line)
            decisions += listed
        best, narrowed = self._narrowed(question, best)
        best, extended = _extended(best, question)
        decisions += narrowed + extended + self._row_named(question, best)
        if (signature := signature_above(best, question)) is not None:
            decisions.append(Decision(by="procedure", outcome="extended", reason="signature", unit=signature.marker()))
            return self._answer([signature, best], decisions, fields)
        return self._answer([best], decisions, fields)

    def _defining_first(self, context: Context, read: list) -> tuple[list, list[Decision]]:
        """For "what is X?", the candidate that defines X ("BM25 is a ranking function …") before one the reader reads
        higher that only mentions it ("BM25S is an implementation of BM25"); below the threshold the definition still
        answers on its form (`_structural_match`)."""
        term = defined_term(context.question)
        defining = first_defining(term, [row for *_, row in read], context) if term else None
        if defining is None or defining is read[0][2]:
            return read, []
        first = next(item for item in read if item[2] is defining)
        moved = Decision(by="definition", outcome="moved", reason="defines_term", unit=defining.unit.marker(),
                         facts={"term": term, "preferred_by": "reader", "preferred": read[0][2].unit.marker(),
                                "preferred_score": f"{read[0][0]:.2f}"})
        return [first, *(item for item in read if item is not first)], [moved]

    def _row_named(self, question: str, best: Unit) -> list[Decision]:
        """What is said of a table row that answers (the row and column the question names) and of a sentence a page's
        first unit finishes."""
        decisions = []
        if best.kind == "row" and (lookup := named_row(question, [best], self.tokenizer.tokens)) is not None:
            decisions.append(Decision(by="table row", outcome="noted", reason="row_named" if lookup[2] else "row_named_key",
                                      unit=best.marker(), facts=_row_facts(best, lookup[1], lookup[2])))
        if best.section and best.section == best.source.continues:
            decisions.append(Decision(by="page", outcome="noted", reason="continues_page", unit=best.marker(),
                                      facts={"begun": best.section}))
        return decisions

    def _scorer_decides(self, context: Context, scored: list, why: list[Decision]) -> Proposal:
        """Without a reader, or for a query the reader cannot read (`why` says so): the scorer's best unit answers when
        its probability reaches `min_support`."""
        question = context.question
        scored, moved = definition_first(context, scored)
        scored, moved = whole_list_first(question, scored, self.min_support, moved)
        best_score, best = scored[0].probability, scored[0].unit
        runner_up = scored[1] if len(scored) > 1 else None
        fields = {
            "score": round(best_score, 4), "threshold": self.min_support,
            "best_unit": _shown(best),
            "runner_up": _shown(runner_up.unit) if runner_up else None,
            "runner_up_score": round(runner_up.probability, 4) if runner_up else None,
        }
        if best_score < self.min_support:
            found = self._structural_match(context, scored)
            if found is None:
                none = Decision(by="scorer", outcome="abstained", reason="scorer_finds_none", unit=best.marker(),
                                score=round(best_score, 4), threshold=self.min_support)
                return self._abstained([none, *why], **fields)
            best, chosen = found
            below = Decision(by="scorer", outcome="noted", reason="scorer_below", unit=scored[0].unit.marker(),
                             score=round(best_score, 4), threshold=self.min_support)
            return self._answer([best], [chosen, below, *why], fields)
        scorer_best = best
        best, extended = _extended(best, question)
        answers = Decision(by="scorer", outcome="answered", reason="scorer_answers", unit=scorer_best.marker(),
                           score=round(best_score, 4), threshold=self.min_support, facts={"kind": best.kind})
        return self._answer([best], [answers, *moved, *why, *extended, *self._row_named(question, best)], fields)

    def _answer(self, units: list[Unit], decisions: list[Decision], fields: dict) -> Proposal:
        """The proposal quoting each unit, one cited passage after the other (one unit, but for a collection's summaries)."""
        if units[0].header:
            decisions = [*decisions, Decision(by="table row", outcome="noted", reason="table_header",
                                              unit=units[0].marker(), facts={"header": " ".join(units[0].header.split())})]
        return Proposal(
            producer=self.name,
            # A command or a list keeps its lines: joined into one, a command would not run.
            answer="\n".join(f"{u.quote if u.kind in ('code', 'list') else join_lines(u.quote, u.source.compounds)} "
                              f"{u.marker()}" for u in units),
            citations=[
                ProposedCitation(source_id=u.source.source_id, page=u.source.page, start_line=u.start_line,
                                 end_line=u.end_line, quote=u.quote)
                for u in units
            ],
            note=decisions_note(decisions),
            decisions=decisions,
            row_cells=row_cells(units[0]) if len(units) == 1 and units[0].kind == "row" else [],
            **fields,
        )


# The extenders, in the order they run on the chosen unit, each with the reason code of what it did.
EXTENDERS = ((with_command_above, "with_command"), (with_what_follows, "with_what_follows"),
             (with_value, "runs_to_value"), (with_default, "runs_to_default"), (with_antecedent, "with_antecedent"))


def _extended(best: Unit, question: str) -> tuple[Unit, list[Decision]]:
    """The chosen unit after each extender in turn, with a decision for each that ran it on."""
    decisions = []
    for extend, reason in EXTENDERS:
        longer = extend(best, question)
        if longer is not best:
            decisions.append(Decision(by="extend", outcome="extended", reason=reason, unit=longer.marker()))
            best = longer
    return best, decisions


def _row_facts(row, key: str, columns: list[str]) -> dict[str, str]:
    """The row a question names by `key`, its asked `columns` and their cells when certain ("Data type: CHAR(1)")."""
    cells = asked_cells(row, columns)
    return {"key": key, "columns": " / ".join(columns),
            "cells": " (" + "; ".join(f"{name}: {cell}" for name, cell in cells) + ")" if cells else ""}


def _best_part(question: str, parts: list[Unit], scores: list[float]) -> tuple[int, list[Decision]]:
    """The part of a unit the reader scores highest among those that may answer, and what was left aside: "Level 3
    heading: …" is not the part that answers "How are level 2 headings formatted?", however it reads; nor is a FAQ
    entry's question ("3. Is there C++ bindings ?") the part that answers it, as in scoring."""
    references = numbered_references(question)
    answering = [i for i, unit in enumerate(parts) if not asks(unit.quote)] or range(len(parts))
    candidates = [i for i in answering if not names_another(references, parts[i])] or answering
    naming = [] if len(candidates) == len(answering) else [
        Decision(by="numbered item", outcome="noted", reason="other_numbers_aside")]
    return max(candidates, key=lambda i: scores[i]), naming


def _shown(unit: Unit) -> str:
    """A unit as the trace names it: its marker and its text, cut to 300 characters."""
    return f"{unit.marker()} {join_lines(unit.quote, unit.source.compounds)}"[:300]
