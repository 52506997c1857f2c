"""What the public API endpoints do: parse the request and settings, run the engine, keep the result.

Every handler takes the app's `Shared` state first (the layout binds it with `bind`), then the
values of its input components in the order the endpoint declares them, and returns plain
JSON-serialisable data plus the session. Bad input raises `InputError`, which `guarded` turns
into a one-line `gr.Error`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import html
import inspect
import logging
import os
from pathlib import Path

import gradio as gr
from pydantic import ValidationError

from pipeline import (
    Document,
    FairLane,
    InputError,
    RagError,
    Request,
    Settings,
    Trace,
    acting_for,
    can_read,
    check_answer_text,
    check_question,
    limits,
    megabytes,
    parse_answer,
    parse_iso_date,
    release_free_memory,
    strip_markers,
)

from . import history, panels
from .accounts import parse_groups, requester_groups
from .clients import InProgress, fairness_key, request_clients
from .demos import run_demo
from .received import forget_file, received_file
from .source import document_details
from .state import (
    MAX_FILE_BYTES,
    MAX_FILES_PER_UPLOAD,
    MAX_PDF_PAGES,
    ROOT,
    Session,
    Shared,
    session_of,
    session_quota_left,
)

log = logging.getLogger("auditable_rag.ui")


# --------------------------------------------------------------------------- errors and binding


def clean(message: str) -> str:
    """An error message without server paths."""
    return message.replace(str(ROOT) + os.sep, "").replace(str(ROOT), ".")


def toast(message: str) -> str:
    """Text for gr.Warning/gr.Info/gr.Error: Gradio renders toasts as HTML, and messages quote documents."""
    return html.escape(message, quote=False)


def guarded(fn):
    """Bad input → a one-line gr.Error; anything unexpected → logged, a short gr.Error (no stack trace)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except RagError as error:
            raise gr.Error(toast(clean(str(error))), print_exception=False) from None
        except Exception as error:  # noqa: BLE001 - the UI must never show a stack trace
            log.exception("unexpected error in %s", fn.__name__)
            first = (str(error).splitlines() or [""])[0][:300]
            raise gr.Error(toast(f"Unexpected error ({type(error).__name__}): {clean(first)}"),
                           print_exception=False) from None

    return wrapper


def bind(fn, *args, **kwargs):
    """Bind leading arguments, keeping the handler's name, docstring and annotations (Gradio's API page shows the
    docstring, and finds the injected `gr.Request` parameter by its annotation, which a plain partial hides).

    The signature Gradio inspects leaves the bound arguments out of the endpoint.
    """

    @functools.wraps(fn)
    def bound(*more, **more_kwargs):
        return fn(*args, *more, **kwargs, **more_kwargs)

    bound.__signature__ = inspect.signature(functools.partial(fn, *args, **kwargs))
    return bound


# --------------------------------------------------------------------------- request parsing


def parse_request(question: str | None, date: str | None, topic: str | None, groups) -> Request:
    question = check_question(question)
    text = (date or "").strip()
    day = parse_iso_date(text, "request date") if text else dt.date.today()
    topic = (topic or "").strip()[:200] or None
    if topic and topic.lower() in {"any", "all", "none"}:
        topic = None
    return Request(question=question, date=day, date_given=bool(text), topic=topic, groups=parse_groups(groups))


def parse_settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval,
                   base: Settings | None = None) -> Settings:
    """The form's values over `base` (the engine's own settings: what the form does not show, as configured)."""
    values = {"top_k": top_k, "min_lexical": min_lexical, "min_dense": min_dense, "window": window,
              "reserve": reserve, "eligibility": eligibility, "retrieval": retrieval}
    values = {k: v for k, v in values.items() if v not in (None, "")}
    for key in ("top_k", "window", "reserve"):
        if key in values:
            try:
                values[key] = int(float(values[key]))
            except (TypeError, ValueError):
                raise InputError("settings", f"{key} must be a whole number") from None
    try:
        return Settings(**{**(base.model_dump() if base is not None else {}), **values})
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError("settings", f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def remember(session: Session, trace: Trace, documents: dict, kind: str = "ask", asked: str | None = None) -> dict:
    """Keep the trace and the documents it may show (only those this requester can read), as the newest
    turn of the session's conversation."""
    session.last_trace = trace
    session.last_documents = {sid: d for sid, d in documents.items() if can_read(d, trace.request.groups)}
    history.conversation_of(session).add(kind, asked or trace.request.question, trace, session.last_documents,
                                         session.last_demo)
    return trace.model_dump(mode="json")


# --------------------------------------------------------------------------- /ask, /check_answer, /run_demo


@guarded
def do_ask(shared: Shared, question, date, topic, groups, top_k, min_lexical, min_dense, window, reserve,
           eligibility, retrieval, session, request: gr.Request = None):
    """Answer a question from the session's collection (samples + its uploads), or abstain with a reason.
    Returns the full trace (JSON): trace["answer"] is the public answer-v1 object, trace["explanation"]
    says why in plain language."""
    session = session_of(session)
    groups = requester_groups(shared.accounts, session, groups, request)
    asked = parse_request(question, date, topic, groups)
    searched = history.resolve_request(session, asked)  # a follow-up, only when the page's switch is on
    settings = parse_settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval,
                              shared.engine.settings)
    corpus = session.corpus(shared)
    generator = judge = None
    model = shared.models.get(session.generator)
    if model is not None:
        from pipeline import with_budget_of

        settings = with_budget_of(session.generator, settings)  # its prompt holds instructions as well as the sources
        generator = _keyed(model, session.api_key)
        # A model paraphrases: the session's judge for model answers decides (the learned one unless the page's
        # "Claim judge", or LLM_JUDGE=on, asks the model too; the learned judge then decides when a call fails).
        judge = _keyed(shared.engine.judge_named(session.judge), session.api_key)
    trace = shared.engine.ask(corpus, searched, settings, generator=generator, judge=judge)
    if trace.proposal is not None and trace.proposal.generation is not None and trace.answer.status == "abstained":
        gr.Warning(html.escape(f"{trace.answer.producer}: {trace.proposal.note or trace.answer.reason_code}"))
    session.last_demo = None
    return remember(session, trace, corpus.documents, "ask", asked.question), session


def _keyed(part, api_key: str | None):
    """The part asking with this session's own key, when it calls a model server."""
    from pipeline import SessionKeyed

    return part.with_api_key(api_key) if isinstance(part, SessionKeyed) else part


@guarded
def do_check(shared: Shared, answer_text, question, date, topic, groups, top_k, min_lexical, min_dense, window,
             reserve, eligibility, retrieval, session, request: gr.Request = None):
    """Check an answer written elsewhere: citation markers like [travel-v2:1-3] or a proposal JSON
    {"answer", "citations": [{"source_id","start_line","end_line","page"?,"quote"?}]}. Each citation is
    verified or dropped against the session's documents; returns the trace (JSON)."""
    session = session_of(session)
    proposal = parse_answer(check_answer_text(answer_text))  # capped: claim splitting grows faster than linearly
    if not (question or "").strip():
        question = strip_markers(proposal.answer or "") or "checked answer"
    groups = requester_groups(shared.accounts, session, groups, request)
    asked = parse_request(question, date, topic, groups)
    settings = parse_settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval,
                              shared.engine.settings)
    corpus = session.corpus(shared)
    trace = shared.engine.ask(corpus, asked, settings, proposal=proposal)
    session.last_demo = None
    return remember(session, trace, corpus.documents, "check"), session


@guarded
def do_demo(shared: Shared, name, session, groups="", request: gr.Request = None):
    """Run one seed scenario by name (e.g. "propose-600-cite-v2"); returns its trace (JSON). A scenario reads
    only the groups you have: your account's when signed in, else those you declare (comma-separated)."""
    session = session_of(session)
    if shared.accounts is not None:  # signed in: a demo may not lend groups the account lacks
        from .demos import BY_NAME

        needed = set(BY_NAME[name].groups) if name in BY_NAME else set()
        missing = needed - set(requester_groups(shared.accounts, session, "", request))
        if missing:
            raise InputError("demo", f"this demo needs the group(s) {', '.join(sorted(missing))}, "
                                     "which your account does not have")
    declared = requester_groups(shared.accounts, session, groups, request)
    scenario, trace, documents = run_demo(shared, (name or "").strip(), declared=declared)
    session.last_demo = scenario.name
    return remember(session, trace, documents, "demo", f"demo: {scenario.name}"), session


# --------------------------------------------------------------------------- /documents


@guarded
def do_documents(shared: Shared, groups, session, request: gr.Request = None):
    """The documents this session can read with these access groups (comma-separated; with sign-in, the
    account's groups are used instead). Each has a "status": parsed / embedding n of m / ready / failed (reason)
    — an upload can be asked about at once; dense ranking joins when it is "ready"."""
    session = session_of(session)
    groups = requester_groups(shared.accounts, session, groups, request)
    uploaded, library = set(session.uploads), shared.library_ids()
    return [{"source_id": d.source_id, "title": d.meta.title, "version": d.meta.version, "topic": d.meta.topic,
             "authority": d.meta.authority, "valid_from": str(d.meta.valid_from or "") or None,
             "valid_to": str(d.meta.valid_to or "") or None, "kind": d.kind, "filename": panels.label(d),
             "origin": "uploaded" if d.source_id in uploaded else ("library" if d.source_id in library else "sample"),
             "status": session.document_status(d.source_id), "details": document_details(d)}
            for d in session.readable(shared, parse_groups(groups))], session


# --------------------------------------------------------------------------- /upload


def _upload_metadata(version, topic, authority, valid_from, valid_to) -> dict[str, str]:
    metadata = {"version": version, "topic": topic, "authority": authority, "valid_from": valid_from,
                "valid_to": valid_to}
    return {k: v.strip() for k, v in metadata.items() if isinstance(v, str) and v.strip()}


def _parse_upload(shared: Shared, path: str, metadata: dict[str, str], known_digests: dict[str, str],
                  known_ids: set[str], quota_left: int, admit=None) -> tuple[Document, bytes]:
    """Read and parse one uploaded file; InputError (labelled with the file's name) if it cannot be added.
    `admit` (a MemoryAdmission) may refuse it for the memory it would hold, before it is unpacked."""
    from pipeline import PdfLimits, sha256

    name = Path(path).name  # a label only: the file is read from Gradio's temporary copy
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise InputError(name, f"is {megabytes(size)}; the limit is {megabytes(MAX_FILE_BYTES)}")
    if size > quota_left:
        raise InputError(name, f"is {megabytes(size)}; this session may upload {megabytes(quota_left)} more "
                               "(the uploads of one session are bounded)")
    with open(path, "rb") as handle:
        data = handle.read()
    digest = sha256(data)
    if digest in known_digests:  # the same bytes again: neither parsed nor embedded twice
        raise InputError(name, f"is already loaded (as {known_digests[digest]})")
    # The form's fields apply to a file without front matter, or of a type that cannot hold any (a PDF).
    has_front_matter = data.lstrip(b"\xef\xbb\xbf").startswith(b"---")
    given = metadata if metadata and (not has_front_matter or not shared.engine.takes_front_matter(data, name)) else None
    limits = PdfLimits(max_pages=MAX_PDF_PAGES, max_bytes=MAX_FILE_BYTES)
    if admit is not None and shared.engine.parser_for(data, name).name == "text":  # priced before it is parsed
        from pipeline import text_size

        admit.check(name, text_size(data))
    document = shared.engine.parse(data, name, given, limits,
                                   admit=(lambda summary: admit(name, summary)) if admit else None)
    if document.source_id in known_ids:
        raise InputError(name, f"its id {document.source_id!r} is already used by another document; "
                               "give it a different `id` in its front matter")
    return document, data


# A client's uploads under way (more are refused at once), and the one indexing lane: each client's behind its own.
UPLOADS = InProgress(lambda: limits.UPLOADS_WAITING_PER_CLIENT, "upload")
INDEXING = FairLane(1)


def parse_turn(shared: Shared):
    """A context holding a parse worker's slot for the current client (`pipeline.acting_for`), in the sandbox's
    fair lane: an upload reads its file and has it parsed within one turn, so a waiting upload holds no file."""
    sandbox = shared.engine.sandbox
    return sandbox.turn() if hasattr(sandbox, "turn") else contextlib.nullcontext()


def _parse_uploads(shared: Shared, session: Session, paths: list[str], metadata: dict[str, str],
                   progress) -> tuple[list[Document], dict[str, bytes], list[str]]:
    """Each received file read and parsed, one turn of the parse lane each: (documents, bytes by digest, errors)."""
    visible = session.visible_documents(shared)  # never a restricted sample: that would reveal it exists
    known_digests = {d.digest: d.source_id for d in visible}
    known_ids = {d.source_id for d in visible}
    new, data_by_digest, errors = [], {}, []
    admit = MemoryAdmission(session)
    for i, path in enumerate(paths):
        name = Path(path).name
        progress((i, len(paths)), desc=f"parsing {name}")
        try:
            with parse_turn(shared):
                received = received_file(path)  # never a server file named by a forged request
                try:
                    quota_left = session_quota_left(session) - sum(len(d) for d in data_by_digest.values())
                    document, data = _parse_upload(shared, str(received), metadata, known_digests, known_ids,
                                                   quota_left, admit)
                finally:
                    forget_file(received)
        except InputError as error:
            errors.append(clean(str(error)))
            continue
        except OSError as error:
            errors.append(f"{name}: cannot be read ({error.strerror})")
            continue
        new.append(document)
        data_by_digest[document.digest] = data
        known_digests[document.digest] = document.source_id
        known_ids.add(document.source_id)
    return new, data_by_digest, errors


class MemoryAdmission:
    """One upload batch's admission to the memory budget (pipeline.ingest.budgets): a file is refused when, with the
    batch's files admitted before it, it would not fit the session's or the server's budget."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.pending: dict[str, int] = {}

    def check(self, name: str, summary: dict) -> int:
        from pipeline import document_cost, upload_budget

        cost = document_cost(summary)
        upload_budget().check(self.session, {**self.pending, f"\0{len(self.pending)}": cost}, name,
                              clients=self.session.clients)
        return cost

    def __call__(self, name: str, summary: dict) -> None:
        self.pending[f"\0{len(self.pending)}"] = self.check(name, summary)


def _added(document: Document) -> dict:
    from pipeline import document_warnings

    return {"source_id": document.source_id, "filename": document.filename, "kind": document.kind,
            "pages": len(document.pages), "lines": sum(len(p.lines) for p in document.pages),
            "version": document.meta.version, "topic": document.meta.topic,
            "ocr_pages": [p.number for p in document.pages if p.ocr], "warnings": document_warnings(document)}


def _chosen_paths(files, label: str) -> list[str]:
    """The received files' paths (still to be checked by `received_file`), at least one and at most the limit."""
    files = files if isinstance(files, (list, tuple)) else [files]  # a single-file input gives one value
    paths = [str(getattr(f, "name", f)) for f in files if f]
    if not paths:
        raise InputError(label, "choose one or more files first")
    if len(paths) > MAX_FILES_PER_UPLOAD:
        raise InputError(label, f"{len(paths)} files at once; the limit is {MAX_FILES_PER_UPLOAD}")
    return paths


@guarded
def do_upload(shared: Shared, files, version, topic, authority, valid_from, valid_to, session,
              request: gr.Request | None = None, progress=gr.Progress()):
    """Add PDFs or text files (.pdf, .md, .txt) to this session's collection only. The metadata fields
    apply to files without front matter. A document can be asked about as soon as this returns (BM25);
    its dense vectors are computed in the background (each added item's "status" says how far).
    Returns {"added": [...], "errors": [...], "documents": [...]}."""
    session = session_of(session)
    paths = _chosen_paths(files, "upload")
    session.clients = request_clients(request) if request is not None else session.clients
    client = fairness_key(request)
    with acting_for(client), UPLOADS.hold(client):
        new, data_by_digest, errors = _parse_uploads(shared, session, paths, _upload_metadata(
            version, topic, authority, valid_from, valid_to), progress)
        if new:
            progress((len(paths), len(paths)), desc="indexing (BM25); dense vectors follow in the background")
            with INDEXING.turn():
                session.add(shared, new, data_by_digest)
    for error in errors:
        gr.Warning(toast(error))
    if new:
        gr.Info(toast(f"Added {len(new)} document(s): {', '.join(d.source_id for d in new)}"))
    added = [{**_added(d), "status": session.document_status(d.source_id)} for d in new]
    release_free_memory()  # the parse's temporary objects are gone: their pages go back (pipeline/core/memory.py)
    return {"added": added, "errors": errors, "documents": sorted(session.uploads)}, session


# --------------------------------------------------------------------------- /add_to_library


def _read_upload(path: str) -> tuple[str, bytes]:
    """(label, bytes) of one received file, refusing oversize files before reading them."""
    received = received_file(path)  # never a server file named by a forged request
    try:
        name = received.name
        size = os.path.getsize(received)
        if size > MAX_FILE_BYTES:
            raise InputError(name, f"is {megabytes(size)}; the limit is {megabytes(MAX_FILE_BYTES)}")
        with open(received, "rb") as handle:
            return name, handle.read()
    finally:
        forget_file(received)


@guarded
def do_add_to_library(shared: Shared, files, version, topic, authority, valid_from, valid_to, session,
                      request: gr.Request = None, progress=gr.Progress()):
    """Add PDFs or text files to the persistent library that every session reads (signed-in members of
    library-admin only). A bad file stops the whole batch before anything is committed.
    Returns {"added": [...], "unchanged": [...], "library": [...]}."""
    from pipeline import LIBRARY_ADMIN, Incoming, PdfLimits

    session = session_of(session)
    if shared.accounts is None or shared.library is None:
        raise InputError("library", "the shared library needs sign-in (AUTH_USERS_FILE); in demo mode uploads "
                                    "stay in your session")
    if LIBRARY_ADMIN not in requester_groups(shared.accounts, session, "", request):
        raise InputError("library", f"only members of {LIBRARY_ADMIN} may add to the shared library")
    paths = _chosen_paths(files, "library")
    metadata = _upload_metadata(version, topic, authority, valid_from, valid_to)
    incoming = [Incoming(*_read_upload(path), metadata=metadata or None) for path in paths]
    with acting_for(fairness_key(request)):  # its files wait for a parse worker behind this account's own
        added, unchanged = shared.library.add(
            shared.engine, incoming, reserved_ids={d.source_id for d in shared.samples},
            limits=PdfLimits(max_pages=MAX_PDF_PAGES, max_bytes=MAX_FILE_BYTES),
            progress=lambda done, total, stage: progress((done, max(total, 1)), desc=stage))
    if added:
        gr.Info(f"Added to the shared library: {html.escape(', '.join(added))}")
    return {"added": added, "unchanged": unchanged, "library": sorted(shared.library_ids())}, session
