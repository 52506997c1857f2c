"""The first-use line: what the sample documents are and what to ask, derived from the documents everyone may read
(their titles, topics and languages), so it follows the sample corpus and never names a restricted document."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline import Document

from .panels import _e

_QUALIFIER = re.compile(r"\s*[(（][^)）]*[)）]\s*$")  # "(archived)", "（已归档）": a version's note, not its subject
_YEAR = re.compile(r"\s+\d{4}$")
SUGGESTED = 3
LANGUAGES = {"zh": "Chinese", "fr": "French", "de": "German", "es": "Spanish", "ja": "Japanese"}


def subject(document: Document) -> str:
    """The document's subject: its title without a trailing qualifier or year (versions share a subject)."""
    title = (document.meta.title or document.source_id).strip()
    return _YEAR.sub("", _QUALIFIER.sub("", title)).strip() or title


def first_use_html(documents: Iterable[Document]) -> str:
    """One paragraph: how many sample documents, on which subjects and in which languages, and a few questions
    to start with (one per topic, from the English subjects)."""
    documents = sorted(documents, key=lambda d: d.source_id)
    if not documents:
        return ""
    subjects: dict[str, int] = {}
    for d in documents:
        if (d.meta.lang or "en") == "en":
            subjects[subject(d)] = subjects.get(subject(d), 0) + 1
    languages = sorted({(d.meta.lang or "en") for d in documents})
    shown = [f"{_e(s)}{f' ({n} versions)' if n > 1 else ''}" for s, n in subjects.items()]
    by_topic: dict[str, str] = {}
    for d in documents:
        if (d.meta.lang or "en") == "en":
            by_topic.setdefault(d.meta.topic or "", subject(d))
    ideas = list(dict.fromkeys(by_topic.values()))[:SUGGESTED]
    questions = ", ".join(f"<i>What do the samples say about “{_e(s)}”?</i>" for s in ideas)
    translated = (f", some also in {', '.join(_e(LANGUAGES.get(lang, lang)) for lang in languages if lang != 'en')}"
                  if len(languages) > 1 else "")
    return (f"<p class='rag-first-use'><b>First time here?</b> The samples are {len(documents)} short, fictional "
            f"documents (English{translated}): {', '.join(shown)}. Ask about any of them, for example "
            f"{questions}, or run a demo (beside the question); upload your own files to ask about them.</p>")
