"""A question form: a place or a person's name the question gives ("… in Beijing?", 上海的住宿限额) must be in the cited
source: the Beijing policy's limit shares 住宿 and 限额 with 上海的住宿限额 but does not answer it."""

from __future__ import annotations

from pipeline.lang.names import chinese_place_names, english_names, unmentioned_names
from pipeline.lang.tokenize import has_cjk
from pipeline.question.forms.keep import Evidence, Refusal


class Names:
    name = "names"
    with_reader = False

    def found(self, question: str) -> str | None:
        return _listed(chinese_place_names(question) + english_names(question)) or None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        places, names = chinese_place_names(question), english_names(question)
        if not places and not names:
            return candidates
        texts = {source.n: source_text(source) for source in evidence.sources}
        named = [c for c in candidates if all(place in texts[c.unit.source.n] for place in places)
                 and not unmentioned_names(names, texts[c.unit.source.n])]
        return named or Refusal("name_unmentioned", {"names": _listed(places + names)})


def _listed(names: list[str]) -> str:
    return ("、" if has_cjk("".join(names)) else ", ").join(names)


def source_text(source) -> str:
    """What a source says, for the name guard: its document's name counts as a mention ("the Apache license" asked of
    a window of apache-2.0.txt that never repeats "Apache")."""
    return "\n".join([source.names or source.source_id, source.heading, source.continues,
                      *(line.text for line in source.lines)])
