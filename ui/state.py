"""Collections: the shared read-only samples and each browser session's own uploads.

The samples (sample_docs/corpus) are parsed and indexed once per process and never changed.
A `Session` lives in a `gr.State`: it holds only that session's uploaded documents and PDF
bytes, and the corpus built from samples + uploads. Nothing here is shared between sessions,
and uploaded file names are only labels (bytes are read from Gradio's temporary file).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import (Corpus, Document, Engine, EngineConfig, InputError, StoreError, Trace, document_cost,
                      document_size, upload_budget)

from .pdf_files import PdfFiles
from .retention import SESSION_TTL_S  # noqa: F401 (the layout imports it from here)

log = logging.getLogger("auditable_rag.ui")
ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = ROOT / "sample_docs" / "corpus"

DEFAULT_GENERATOR = EngineConfig.model_fields["generator"].default
MAX_FILES_PER_UPLOAD = 10
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_PDF_PAGES = 200
MAX_SESSION_DOCUMENTS = 30
MAX_SESSION_BYTES = 30 * 1024 * 1024  # all of a session's uploads together: a free host has 512 MB for everyone


@dataclass
class Shared:
    """The engine, the sample collection and the persistent library, shared by every session.

    The samples never change. The library may: another session's admin (or another app instance
    sharing DATA_DIR) can commit to it, so `documents`/`corpus` re-read it when its version moves.
    """

    engine: Engine
    samples: list[Document]
    pdf_bytes: dict[str, bytes]  # by digest (samples)
    accounts: Any = None  # pipeline.Accounts when a users file is configured; None in demo mode
    library: Any = None  # pipeline.Library (DATA_DIR), or None
    models: dict[str, Any] = field(default_factory=dict)  # the configured generators that ask a model server, by name
    _samples_corpus: Corpus | None = None
    _collection: tuple[str, list[Document], Corpus] | None = None
    _demo_corpora: dict[tuple, Corpus] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def llm(self) -> Any:
        """The language-model generator when one is configured (the page then offers it), else None."""
        return next(iter(self.models.values()), None)

    def _current(self) -> tuple[str, list[Document], Corpus]:
        version = self.library.version() if self.library is not None else "none"
        with self._lock:
            if self._collection is None or self._collection[0] != version:
                try:
                    library = self.library.documents() if self.library is not None else []
                except StoreError as error:  # the manifest broke after the start: keep serving what was read
                    log.warning("library not reloaded: %s", error)
                    if self._collection is None:
                        library = []
                    else:
                        self._collection = (version, *self._collection[1:])
                        return self._collection
                documents = list(self.samples) + library
                corpus = self._samples_corpus if not library and self._samples_corpus is not None \
                    else self.engine.corpus(documents)
                self._collection = (version, documents, corpus)
            return self._collection

    @property
    def documents(self) -> list[Document]:
        return self._current()[1]

    @property
    def corpus(self) -> Corpus:
        return self._current()[2]

    def library_ids(self) -> set[str]:
        return {d.source_id for d in self.documents[len(self.samples):]}

    def pdf(self, digest: str) -> bytes | None:
        found = self.pdf_bytes.get(digest)
        if found is None and self.library is not None:
            found = self.library.blob(digest)
        return found

    def demo_corpus(self, exclude: tuple[str, ...], include_conflict: bool) -> Corpus:
        """The corpus a scenario names (samples minus `exclude`, plus the conflicting copy); never the library."""
        from pipeline import scenario_documents

        key = (tuple(exclude), include_conflict)
        with self._lock:
            if key == ((), False) and self._samples_corpus is not None:
                return self._samples_corpus
            if key not in self._demo_corpora:
                self._demo_corpora[key] = self.engine.corpus(scenario_documents(self.samples, *key))
            return self._demo_corpora[key]


def load_shared(engine: Engine | None = None, samples_dir: Path = SAMPLES_DIR, accounts: Any = None,
                library: Any = None, sandbox: Any = None) -> Shared:
    """Build the engine (unless given), parse and index the samples, open the library; PDFs keep their bytes.

    `accounts` (a `pipeline.Accounts`) turns on sign-in; by default it comes from AUTH_USERS_FILE. `library`
    defaults to DATA_DIR's (./data). Uploaded files are parsed by `sandbox` (default: the process's pool of
    worker processes, pipeline.engine.sandbox; False: in this process); the samples, which ship with the app, here.
    """
    from pipeline import EngineConfig, Library, build_engine, default_data_dir, environment

    from .accounts import load_accounts

    if engine is None:  # the embedded vectors live beside the library unless RAG_CACHE_DIR says otherwise
        cache = None if environment().get("RAG_CACHE_DIR") else default_data_dir() / "chroma"
        engine = build_engine(EngineConfig.from_env(cache_dir=cache))
    samples = engine.parse_paths([samples_dir]) if samples_dir.is_dir() else []
    pdf_bytes = {d.digest: Path(d.filename).read_bytes() for d in samples if d.paged}
    if sandbox is not False:
        from dataclasses import replace

        from pipeline import default_sandbox

        engine = replace(engine, sandbox=sandbox or default_sandbox())  # the caller's engine is left as it was
    library = library if library is not None else Library(default_data_dir())
    library.documents()  # a corrupt manifest stops the start here, with one line naming it
    return Shared(engine=engine, samples=samples, pdf_bytes=pdf_bytes, models=_configured_models(engine),
                  accounts=accounts if accounts is not None else load_accounts(),
                  library=library,
                  _samples_corpus=engine.corpus(samples))


def _configured_models(engine: Engine) -> dict[str, Any]:
    """The registered generators that ask a model server and are configured (LLM_BASE_URL, LLM_MODEL), built."""
    from pipeline import GENERATORS

    return {entry.name: engine.generator_named(entry.name) for entry in GENERATORS.entries()
            if entry.trait("remote") and entry.available()}


def default_judge() -> str:
    """The claim judge for a model's answers a new session starts with: the one its registration pairs with it, or,
    when the operator switches it on (LLM_JUDGE=on), the judge that asks the model too."""
    from pipeline import JUDGES, environment

    if environment().switch("LLM_JUDGE", ("1", "on", "llm")):
        return next(entry.name for entry in JUDGES.entries() if entry.trait("remote") and entry.trait("paraphrase"))
    return paired_model_judge()


def paired_model_judge() -> str:
    """The judge a model generator's registration pairs with it (the learned one: it accepts faithful paraphrases)."""
    from pipeline import GENERATORS, paired_judge

    return paired_judge(next(entry.name for entry in GENERATORS.entries() if entry.trait("remote")))


def judges_for_model_answers() -> list[tuple[str, str]]:
    """The judges a session may choose for a model's answers (those that accept a faithful paraphrase)."""
    from pipeline import JUDGES

    return [(entry.shown, entry.name) for entry in JUDGES.entries() if entry.trait("paraphrase")]


def generator_choices() -> list[tuple[str, str]]:
    from pipeline import GENERATORS

    return [(entry.shown, entry.name) for entry in GENERATORS.entries()]


class Session:
    """One browser session's collection: its uploads on top of the shared samples.

    A plain class (not a dataclass): Gradio would try to serialise a dataclass state value.
    """

    def __init__(self) -> None:
        self.uploads: dict[str, Document] = {}  # by source id
        self.pdf_bytes = PdfFiles()  # by digest, on disk (ui/pdf_files.py)
        self.upload_sizes: dict[str, int] = {}  # bytes received, by source id (the session quota)
        self.last_trace: Trace | None = None
        self.last_documents: dict[str, Document] = {}  # documents behind last_trace, readable ones only
        self.last_demo: str | None = None
        self.user: str | None = None  # the signed-in user, when the app has a users file
        self.clients: tuple[str, ...] = ()  # who uploads through it: its address's key, its account's (ui.clients)
        self.generator = DEFAULT_GENERATOR  # or a model's ("llm") when the app has one configured
        self.api_key: str | None = None  # this session's own LLM key: memory only, never logged or traced
        self.judge = default_judge()  # "learned", or "llm": the model also judges each claim (one call per claim)
        self.trace_files: list[Path] = []  # folders of downloadable traces
        self._corpus: Corpus | None = None
        self._shared_view: tuple[Corpus, Corpus] | None = None  # (the shared corpus, this session's view of it)
        self._corpus_key: tuple = ()
        self._vectors = None  # SessionVectors, made on the first upload
        self._jobs = None  # pipeline.Embeddings: the uploads' vectors, computed in the background, one job per upload
        self._lock = threading.RLock()  # two answers and an upload of one session may run at once

    def __deepcopy__(self, memo):  # Gradio deep-copies initial state values; a session is never shared
        return Session()

    def documents(self, shared: Shared, adding: list[Document] = ()) -> list[Document]:
        """Samples + uploads. An upload whose id matches a restricted sample replaces it in this session:
        refusing it would tell the uploader that a document they may not read exists."""
        uploaded = set(self.uploads) | {d.source_id for d in adding}
        samples = [d for d in shared.documents if d.meta.access is None or d.source_id not in uploaded]
        return samples + list(self.uploads.values())

    def visible_documents(self, shared: Shared) -> list[Document]:
        """What duplicate checks may mention: samples anyone may read, and this session's own uploads."""
        return [d for d in shared.documents if d.meta.access is None] + list(self.uploads.values())

    def readable(self, shared: Shared, groups: tuple[str, ...]) -> list[Document]:
        return list(self.corpus(shared).readable_documents(groups).values())

    def corpus(self, shared: Shared) -> Corpus:
        """Samples + uploads, searchable by BM25 at once; each upload ranked by dense similarity too once its own
        vectors are in. Without uploads, the shared collection with caches of this session's own (what the parts
        derive from its questions and answers goes with the session)."""
        if not self.uploads:
            with self._lock:
                self._cancel_embedding()  # the last upload went: nothing of its embedding may go on
                if self._shared_view is None or self._shared_view[0] is not shared.corpus:
                    self._shared_view = (shared.corpus, shared.corpus.with_own_caches())
                return self._shared_view[1]
        with self._lock:
            key = (id(shared.corpus), *sorted(d.digest for d in self.uploads.values()))
            if self._corpus is None or key != self._corpus_key:
                from .session_vectors import SessionVectors

                # Vectors in this session's memory, never the shared Chroma collection (see ui.session_vectors).
                if self._vectors is None or self._vectors.samples is not shared.corpus:
                    self._vectors = SessionVectors(shared.corpus, shared.engine.config.index, previous=self._vectors)
                self._vectors.uploading(list(self.uploads.values()))
                corpus, jobs = shared.engine.searchable_corpus(self.documents(shared), vector_store=self._vectors,
                                                               running=self._jobs)
                if self._jobs is not None:  # jobs of documents deleted or replaced (once the new ones exist)
                    self._jobs.cancel_except(jobs)
                self._corpus, self._jobs, self._corpus_key = corpus, jobs, key
            elif self._corpus.dense_missing and self._jobs is not None \
                    and self._jobs.ready_sources() & self._corpus.dense_missing:
                from pipeline import refreshed

                self._corpus = refreshed(self._corpus, self._vectors, self._jobs.ready_sources())
            return self._corpus

    def _cancel_embedding(self, source_id: str | None = None) -> None:
        """Stop the background embedding of one upload (None: of all), at once: a queued job never starts."""
        if self._jobs is not None:
            self._jobs.cancel(source_id)
            if source_id is None:
                self._jobs = None

    def document_status(self, source_id: str) -> str:
        """waiting to embed n chunks / embedding n of m / ready / failed (reason): one document of this session's."""
        jobs = self._jobs
        return "ready" if jobs is None or source_id not in self.uploads else jobs.document_status(source_id)

    @property
    def embedding_job(self):
        """The background jobs computing this session's vectors (pipeline.Embeddings, one per upload), or None."""
        return self._jobs

    def embedding(self) -> bool:
        """Whether some of this session's vectors are still being computed."""
        jobs = self._jobs
        return jobs is not None and self.uploads != {} and jobs.state == "embedding"

    def embedding_statuses(self) -> list[tuple[str, str]]:
        """(file name, status) of each upload whose vectors are not ready: embedding, waiting, or failed."""
        jobs = self._jobs
        if jobs is None:
            return []
        return [(job.label, job.status()) for job in jobs.pending() if job.source_id in self.uploads
                and self.uploads[job.source_id].digest == job.digest and job.state != "cancelled"]

    def pdf(self, shared: Shared, digest: str) -> bytes | None:
        return self.pdf_bytes.get(digest) or shared.pdf(digest)

    def add(self, shared: Shared, new: list[Document], data: dict[str, bytes]) -> None:
        """Add parsed documents; ids must stay unique across samples and uploads."""
        if len(self.uploads) + len(new) > MAX_SESSION_DOCUMENTS:
            raise InputError("upload", f"a session holds at most {MAX_SESSION_DOCUMENTS} uploaded documents")
        taken = {d.source_id for d in self.documents(shared, adding=new)}
        for document in new:
            if document.source_id in taken:
                raise InputError(Path(document.filename).name, f"duplicate id {document.source_id!r}")
            taken.add(document.source_id)
        self._hold(new)

        def change() -> None:
            for document in new:
                self.uploads[document.source_id] = document
                self.upload_sizes[document.source_id] = len(data.get(document.digest, b""))
                if document.paged:
                    self.pdf_bytes[document.digest] = data[document.digest]

        with self._lock:
            try:
                self._change_or_restore(shared, change)
            except Exception:
                upload_budget().release(self, [d.source_id for d in new])
                raise

    def _hold(self, documents: list[Document], force: bool = False) -> None:
        """Reserve the memory these documents will hold (the process-wide budget, pipeline.ingest.budgets)."""

        costs = {d.source_id: document_cost(document_size(d)) for d in documents}
        label = Path(documents[0].filename).name if len(documents) == 1 else "upload"
        upload_budget().reserve(self, costs, label, force=force, clients=self.clients)

    def replace(self, shared: Shared, document: Document, data: bytes) -> Document:
        """Swap in a new version of one upload (same id); returns the replaced one. Its chunks leave both
        indexes and its vectors and PDF bytes leave this session; if the new collection cannot be built,
        the previous version stays."""
        def change() -> None:
            self.uploads[document.source_id] = document
            self.upload_sizes[document.source_id] = len(data)
            if document.paged:
                self.pdf_bytes[document.digest] = data

        with self._lock:
            old = self.uploads[document.source_id]
            self._hold([document])
            try:
                self._change_or_restore(shared, change)
            except Exception:
                self._hold([old], force=True)  # the previous version's reservation back
                raise
            self._forget(old)
            return old

    def remove(self, shared: Shared, source_id: str) -> Document:
        """Delete one upload: its chunks leave both indexes, its vectors and PDF bytes leave this session."""
        with self._lock:
            document = self.uploads.pop(source_id)
            self._cancel_embedding(source_id)
            self.upload_sizes.pop(source_id, None)
            upload_budget().release(self, [source_id])
            self.corpus(shared)
            self._forget(document)
            return document

    def _snapshot(self) -> tuple[dict, dict, dict]:
        return dict(self.uploads), self.pdf_bytes.copy(), dict(self.upload_sizes)

    def _change_or_restore(self, shared: Shared, change) -> None:
        """Apply `change` and rebuild the collection; on any failure (a PDF that cannot be stored, an index that
        cannot be built) the session is as it was."""
        previous = self._snapshot()
        try:
            change()
            self.corpus(shared)
        except Exception:
            self.uploads, self.pdf_bytes, self.upload_sizes = previous
            raise

    def _forget(self, gone: Document) -> None:
        """Drop what only `gone` used: its PDF bytes and its vectors (chunks another document shares stay)."""
        if gone.paged and not any(d.digest == gone.digest for d in self.uploads.values()):
            self.pdf_bytes.discard(gone.digest)
        if self._vectors is not None:
            self._vectors.forget(list(self.uploads.values()))

    def clear(self) -> None:
        self._cancel_embedding()  # the session ended: its background embedding stops within one batch
        self.uploads.clear()
        upload_budget().release(self)
        self.pdf_bytes.clear_files()
        self.upload_sizes.clear()
        self.last_trace = None
        self.last_documents = {}
        self._corpus = None
        self._shared_view = None
        self._vectors = None
        import shutil

        for folder in self.trace_files:
            shutil.rmtree(folder, ignore_errors=True)
        self.trace_files.clear()


def session_of(value) -> Session:
    """The session a gr.State holds, or a fresh one (a new page, or a state Gradio dropped)."""
    return value if isinstance(value, Session) else Session()


def delete_session(session: Any) -> None:
    """gr.State's delete_callback: drop the session's uploads, bytes and corpus."""
    if isinstance(session, Session):
        session.clear()


def session_quota_left(session: Session) -> int:
    """Bytes this session may still upload (MAX_SESSION_BYTES over all its uploads)."""
    return max(0, MAX_SESSION_BYTES - sum(session.upload_sizes.values()))
