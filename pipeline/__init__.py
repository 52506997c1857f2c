"""The evidence pipeline: parse → chunk → metadata → index → retrieve → pack → generate → verify.

This module is the public API the app (`ui/`) and other tools use: build an engine with
`build_engine(EngineConfig(...))`, turn documents into a `Corpus` with `engine.corpus(...)`,
and ask with `engine.ask(corpus, Request(...))`, which returns a `Trace`. Names load lazily,
so importing `pipeline` does not import PyMuPDF or Chroma until they are used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    ".contracts": ["Abstention", "Answer", "Candidate", "Chunk", "Citation", "CitationCheck", "Context", "Document",
                   "IndexSettings", "Proposal", "ProposedCitation", "Request", "Settings", "SupportSentence", "SupportVerdict",
                   "Trace",
                   "CHECK_NAMES", "REASON_CODES"],
    ".errors": ["InputError", "shown"],
    ".limits": ["MAX_ANSWER_CHARS", "PdfLimits", "MAX_GROUPS", "MAX_GROUPS_CHARS", "MAX_QUESTION_CHARS", "check_answer_text",
                "check_question", "megabytes", "parse_groups", "parse_iso_date"],
    ".chunk": ["Chunker"],
    ".tokenize": ["has_cjk"],
    ".embed": ["vector_key"],
    ".config": ["Engine", "EngineConfig", "build_engine", "GENERATORS", "JUDGES", "EMBEDDERS", "VECTOR_STORES",
                "PARSERS"],
    ".interfaces": ["Embedder", "Generator", "Parser", "SupportJudge", "VectorStore"],
    ".index": ["Corpus", "can_read"],
    ".generate_llm": ["ChatCompletionsGenerator", "LlmConfig", "with_llm_budget"],
    ".support_llm": ["LlmJudge"],
    ".citations": ["ANSWER_HELP", "MARKER", "cited_text", "marker", "marker_key", "parse_answer", "strip_markers"],
    ".scenarios": ["REQUEST_DATE", "SCENARIOS", "Scenario", "run_scenario", "scenario_documents",
                   "scenario_request", "scenario_settings"],
    ".parse": ["TEXT_SUFFIXES", "document_warnings", "sha256"],
    ".render": ["highlight_for", "render_text_html"],
    ".render_pdf": ["render_pdf_page"],
    ".load": ["parse_paths", "stderr_progress"],
    ".accounts": ["Accounts", "add_user"],
    ".library": ["LIBRARY_ADMIN", "Incoming", "Library", "default_data_dir"],
    ".versions": ["check_replacement", "replacement_metadata", "stale_vector_keys"],
    ".background": ["EmbeddingJob", "EmbeddingWorker", "completed", "embedding_worker", "searchable_corpus"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
