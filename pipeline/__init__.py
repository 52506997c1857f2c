"""The evidence pipeline: ingest (parse, metadata) → index (chunk, BM25, vectors) → retrieve → pack → generate →
verify (each citation, then the cited sources' siblings for a conflict).

This module is the public API the app (`ui/`) and other tools use: build an engine with
`build_engine(EngineConfig(...))`, turn documents into a `Corpus` with `engine.corpus(...)`,
and ask with `engine.ask(corpus, Request(...))`, which returns a `Trace`. Names load lazily,
so importing `pipeline` does not import PyMuPDF or Chroma until they are used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    # core: the contracts between the stages, the parts' interfaces and registries, errors and input limits
    ".core.contracts": ["Abstention", "Answer", "Candidate", "Chunk", "Citation", "CitationCheck", "Context",
                        "Document", "FormFound", "IndexSettings", "Proposal", "ProposedCitation", "QuestionReading",
                        "Request", "Settings", "Decision", "decision_words", "SupportSentence", "SupportVerdict", "Trace", "CHECK_NAMES", "REASON_CODES"],
    ".core.errors": ["RagError", "InputError", "ConfigError", "StoreError", "shown"],
    ".core.limits": ["MAX_ANSWER_CHARS", "MAX_GROUPS", "MAX_GROUPS_CHARS", "MAX_QUESTION_CHARS", "PdfLimits", "check_answer_text",
                     "check_question", "megabytes", "parse_groups", "parse_iso_date", "MAX_THUMBNAIL_PIXELS",
                     "SESSION_MEMORY_BYTES"],
    ".core.interfaces": ["Embedder", "Generator", "Parser", "SupportJudge", "VectorStore", "BudgetAware", "CorpusBound",
                         "SessionKeyed", "Deletes", "ReadsUnderTitle"],
    ".engine.parts": ["GENERATORS", "JUDGES", "EMBEDDERS", "VECTOR_STORES", "PARSERS", "FORMS"],  # with the shipped parts
    ".core.policy": ["can_read"],
    ".core.scores": ["score_and_threshold"],
    ".core.citations": ["ANSWER_HELP", "MARKER", "cited_text", "marker", "marker_key", "parse_answer",
                        "strip_markers"],
    # ingest: parse, metadata
    ".ingest.parsers.text": ["TEXT_SUFFIXES"],
    ".ingest.document": ["document_warnings", "sha256", "text_document"],
    ".ingest.paths": ["parse_paths"],
    ".ingest.budgets": ["MemoryBudget", "document_cost", "document_size", "text_cost", "text_size",
                         "upload_budget"],
    # index: chunk, BM25, vectors (and the background embedding of a session's uploads)
    ".index.chunk": ["Chunker"],
    ".index.embed": ["vector_key", "stderr_progress"],
    ".index.corpus": ["Corpus"],
    ".index.background": ["EmbeddingJob", "EmbeddingWorker", "Embeddings", "asking", "completed", "embedding_worker",
                          "refreshed", "searchable_corpus"],
    # generate and verify: the parts a caller may build itself
    ".generate.llm.generator": ["ChatCompletionsGenerator", "LlmConfig"],
    ".llm.client": ["ChatClient"],
    ".question.follow_up": ["is_follow_up", "resolve_follow_up"],
    ".question.reading": ["read_question"],
    ".verify.judges.llm": ["LlmJudge"],
    # engine: one configuration, one builder, the journey; the frozen seed scenarios
    ".core.memory": ["keep_unused_modules_out", "limit_malloc_arenas", "release_free_memory"],
    ".core.settings": ["EngineConfig", "Environment", "environment", "default_cache_dir", "default_data_dir"],
    ".engine.journey": ["explain"],
    ".engine.config": ["Engine", "build_engine", "paired_judge", "with_budget_of", "with_llm_budget"],
    ".engine.sandbox": ["Sandbox", "default_sandbox", "render_page_in_worker", "render_pages_in_worker"],
    ".engine.lanes": ["FairLane", "acting_for"],
    ".engine.scenarios": ["REQUEST_DATE", "SCENARIOS", "Scenario", "run_scenario", "scenario_documents",
                          "scenario_request", "scenario_settings"],
    # around the engine: highlights, accounts, the persistent library
    ".render.highlights": ["highlight_for"],
    ".render.text": ["render_text_html"],
    ".render.tables": ["TableAround", "table_around"],
    ".render.pdf": ["render_pdf_page"],
    ".render.pages": ["PAGE_RENDERERS", "draws_pages", "render_page"],
    ".auth.accounts": ["Accounts", "add_user"],
    ".library.shared": ["LIBRARY_ADMIN", "Incoming", "Library"],
    ".library.versions": ["check_replacement", "replacement_metadata", "stale_vector_keys"],
}
# Modules exported whole: the app reads a limit when it is used, so an operator's (or a test's) value holds.
_MODULES = {"limits": ".core.limits"}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted([*_WHERE, *_MODULES])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        value = import_module(_MODULES[name], __name__)
        globals()[name] = value
        return value
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
