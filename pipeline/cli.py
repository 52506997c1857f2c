"""Command line: ask, ingest, eval, bench, schema (`python -m pipeline --help`)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from pipeline.core.contracts import Proposal, Request, Settings
from pipeline.core.errors import InputError, RagError
from pipeline.core.registry import GENERATORS, JUDGES
from pipeline.core.settings import EngineConfig
from pipeline.engine import parts as _shipped  # noqa: F401 (registers the shipped parts: the choices below)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _add_ask(commands) -> None:
    ask = commands.add_parser("ask", help="answer one question with checked citations, or abstain")
    source = ask.add_mutually_exclusive_group(required=True)
    source.add_argument("--docs", nargs="+", type=Path, metavar="PATH", help="files or folders (read recursively)")
    source.add_argument("--store", type=Path, metavar="DIR", help="a store built by `ingest`")
    ask.add_argument("--question", required=True)
    ask.add_argument("--date", help="request date YYYY-MM-DD (default: today)")
    ask.add_argument("--topic")
    ask.add_argument("--groups", default="", help="the requester's access groups, comma-separated")
    ask.add_argument("--generator", choices=GENERATORS.names(), default=EngineConfig.model_fields["generator"].default,
                     help="who proposes the answer: exact source sentences (default) or a language model configured "
                     "by LLM_BASE_URL, LLM_MODEL, LLM_API_KEY; either way every citation is checked")
    ask.add_argument("--window", type=_positive,
                     help=f"context window in code points (default {Settings().window}; larger with --generator llm)")
    ask.add_argument("--reserve", type=_positive,
                     help=f"part of the window kept for the output (default {Settings().reserve}; larger with --generator llm)")
    ask.add_argument("--top-k", type=_positive, default=Settings().top_k)
    ask.add_argument("--min-lexical", type=float, default=Settings().min_lexical)
    ask.add_argument("--min-dense", type=float, default=Settings().min_dense)
    ask.add_argument("--min-reader", type=float, default=None, metavar="P",
                     help="the probability the reader's best unit needs to answer (default: RAG_MIN_READER, else the "
                          "reader's record's; 0: no reader, the answer scorer decides)")
    ask.add_argument("--retrieval", choices=["hybrid", "bm25", "dense"], default="hybrid")
    ask.add_argument("--eligibility", choices=["before_cutoff", "after_selection"], default="before_cutoff")
    ask.add_argument("--judge", choices=JUDGES.names(), default=None,
                     help="who decides claim_supported: containment (the default for the extractive answerer), the "
                          "learned paraphrase judge (the default with --generator llm, whose answers paraphrase), or "
                          "llm: one short call per claim to the LLM_* model, the learned judge when it fails "
                          "(the deterministic checks always run and win)")
    ask.add_argument("--proposal", type=Path, metavar="FILE", help="verify this proposed answer instead of generating")
    ask.add_argument("--trace", type=Path, metavar="FILE", help="write the full trace (JSON) here")
    ask.add_argument("--highlights", type=Path, metavar="DIR",
                     help="write each cited PDF page as a PNG (text documents as HTML) with the citations highlighted")
    ask.add_argument("--trace-limit", type=_positive, default=Settings().trace_limit, metavar="N",
                     help="candidates listed in the trace, best first (0 = every scored chunk)")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_ask(commands)
    ingest = commands.add_parser("ingest", help="parse, chunk and embed files into a persistent store")
    ingest.add_argument("--store", type=Path, required=True, metavar="DIR")
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    schema = commands.add_parser("schema", help="write the answer object's JSON Schema")
    schema.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "schema" / "answer-v1.schema.json")
    from pipeline.evaluate.cli import add_eval_parser

    add_eval_parser(commands)
    commands.add_parser("bench", help="performance benchmarks (prints a table; `bench --help` for options)")
    users = commands.add_parser("users", help="manage the app's users file (sign-in and access groups)")
    users_commands = users.add_subparsers(dest="users_command", required=True)
    add = users_commands.add_parser("add", help="add or replace a user (the password is asked for)")
    add.add_argument("name")
    add.add_argument("--file", type=Path, required=True, metavar="USERS_YAML")
    add.add_argument("--groups", default="", help="comma-separated access groups (library-admin may add to the library)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    add.add_argument("--no-password", action="store_true", help="a user who signs in through a proxy header only")
    return parser


def _load_proposal(path: Path) -> Proposal:
    from pipeline.core.limits import MAX_ANSWER_CHARS, check_answer_text

    try:
        if path.stat().st_size > 4 * MAX_ANSWER_CHARS:
            raise InputError(str(path), f"is {path.stat().st_size} bytes; a proposal is at most {4 * MAX_ANSWER_CHARS}")
        proposal = Proposal.model_validate_json(path.read_bytes())
        check_answer_text(proposal.answer)
        return proposal
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise InputError(str(path), f"not a valid proposal: {where}: {first['msg']}") from None


def _settings(args) -> Settings:
    # A generator may declare its own budget (a language model's system message needs room besides the sources):
    # it replaces the defaults, never a --window or --reserve given.
    chosen = GENERATORS.entry(args.generator)
    window, reserve = chosen.trait("window", Settings().window), chosen.trait("reserve", Settings().reserve)
    try:
        return Settings(
            window=window if args.window is None else args.window,
            reserve=reserve if args.reserve is None else args.reserve, top_k=args.top_k,
            min_lexical=args.min_lexical, min_dense=args.min_dense, retrieval=args.retrieval,
            eligibility=args.eligibility, trace_limit=args.trace_limit or 10**9,
            min_reader=EngineConfig.from_env().settings.min_reader if args.min_reader is None else args.min_reader,
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError("settings", f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}") from None


def run_ask(args) -> int:
    from pipeline.core.limits import check_question, parse_groups, parse_iso_date
    from pipeline.engine.config import build_engine, paired_judge
    from pipeline.index.embed import stderr_progress
    from pipeline.library.ingest import corpus_from_store

    # Checked before any slow work, each a one-line error (exit 2).
    question, groups = check_question(args.question), parse_groups(args.groups)
    day = parse_iso_date(args.date, "--date") if args.date else None
    proposal = _load_proposal(args.proposal) if args.proposal else None
    settings = _settings(args)
    # A given proposal replaces the generator: no language model is needed to check it.
    generator = args.generator if proposal is None else EngineConfig.model_fields["generator"].default
    judge = args.judge or paired_judge(args.generator)
    engine = build_engine(EngineConfig.from_env(settings=settings, generator=generator, judge=judge))
    if args.store:
        corpus = corpus_from_store(engine, args.store, progress=stderr_progress)
    else:
        corpus = engine.corpus(engine.parse_paths(args.docs), progress=stderr_progress)
    request = Request(
        question=question, date=day or dt.date.today(), date_given=day is not None,
        topic=args.topic, groups=groups,
    )
    trace = engine.ask(corpus, request, settings, proposal=proposal)
    print(trace.answer.model_dump_json(), flush=True)  # first: a failed --trace/--highlights must not lose it
    if trace.proposal is not None and trace.proposal.generation is not None and trace.proposal.abstain_reason:
        print(f"{trace.answer.producer}: {trace.proposal.note}", file=sys.stderr)  # what went wrong, in one line
    for note in sorted({c.judge_call.fallback for c in trace.checks if c.judge_call is not None and c.judge_call.fallback}):
        print(f"llm judge: {note}; the learned judge decided instead", file=sys.stderr)
    if (GENERATORS.entry(args.generator).trait("remote") and trace.abstention is not None
            and trace.abstention.reason_code == "context_budget"):
        print(f"{trace.answer.producer}: {trace.abstention.detail}; the model was not called", file=sys.stderr)
    if args.trace:
        try:
            args.trace.write_text(trace.model_dump_json(indent=1), "utf-8")
        except OSError as error:
            raise InputError(str(args.trace), f"cannot write the trace: {error.strerror}") from None
    if args.highlights:
        try:
            _write_highlights(args, corpus, trace)
        except OSError as error:
            raise InputError(str(args.highlights), f"cannot write highlights: {error.strerror}") from None
    return 0


def _write_highlights(args, corpus, trace) -> None:
    from pipeline.library.store import DocumentStore
    from pipeline.render.files import write_highlights

    def original_bytes(document):
        if args.store:
            return DocumentStore(args.store).blob(document.digest)
        return Path(document.filename).read_bytes()

    readable = corpus.readable_documents(trace.request.groups)
    for path in write_highlights(trace.answer, readable, original_bytes, args.highlights):
        print(f"highlight: {path}", file=sys.stderr)


def run_ingest(args) -> int:
    from pipeline.engine.config import build_engine
    from pipeline.index.embed import stderr_progress
    from pipeline.ingest.paths import stderr_warning
    from pipeline.library.ingest import ingest

    failed: list[str] = []  # one bad file never stops the others: each is one line, and the exit status is 1
    added, unchanged = ingest(build_engine(), args.store, args.paths, progress=stderr_progress, failed=failed,
                              warn=stderr_warning)
    for line in failed:
        print(f"error: {line}", file=sys.stderr)
    print(json.dumps({"store": str(args.store), "added": added, "unchanged": unchanged, "failed": failed}))
    return 1 if failed else 0


def run_schema(args) -> int:
    from pipeline.core.contracts import Answer

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(Answer.model_json_schema(), indent=2) + "\n", "utf-8")
    print(args.out)
    return 0


def run_users(args) -> int:
    import getpass

    from pipeline.auth.accounts import add_user

    if args.no_password:
        password = None
    elif args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {args.name}: ")
    groups = tuple(sorted({g.strip() for g in args.groups.split(",") if g.strip()}))
    add_user(args.file, args.name, password, groups)
    print(json.dumps({"file": str(args.file), "user": args.name, "groups": list(groups)}))
    return 0


def run_bench(arguments: list[str]) -> int:
    """The benchmarks (`benchmarks/`, beside the pipeline: they depend on it, never the other way) in their own process."""
    import os
    import subprocess

    environ = dict(os.environ)  # the child runs in this process's environment, the repository on its path
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                          environ.get("PYTHONPATH")]))
    return subprocess.call([sys.executable, "-m", "benchmarks", *arguments], env=environ)


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["bench"]:  # argparse's REMAINDER refuses options ("--json") after a subcommand
        return run_bench(arguments[1:])
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "ask":
            return run_ask(args)
        if args.command == "ingest":
            return run_ingest(args)
        if args.command == "schema":
            return run_schema(args)
        if args.command == "users":
            return run_users(args)
        if args.command == "eval":
            from pipeline.evaluate.cli import run_eval

            return run_eval(args)
    except RagError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # e.g. the disk is full: one line naming the file, never a traceback
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    return 1
