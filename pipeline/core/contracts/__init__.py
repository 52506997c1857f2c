"""Typed contracts between the pipeline's stages (seed 000, Table 45.2), one module per stage.

parse → Document (`documents`); chunk → Chunk (`chunks`); the request and its settings (`requests`,
`settings`); retrieve → Candidate/Retrieval (`retrieval`); pack → Context (`context`); generate → Proposal
(`proposals`); verify → CitationCheck/Answer (`verdicts`); and the Trace that records all of it (`trace`).
Every stage takes and returns these models, so each step can be inspected and serialised.
"""

from __future__ import annotations

from pipeline.core.contracts.base import REASON_CODES, Frozen, ReasonCode
from pipeline.core.contracts.chunks import Chunk, ChunkKind, Span
from pipeline.core.contracts.context import Context, PackedLine, PackedSource
from pipeline.core.contracts.decisions import REASON_WORDS, Decision, decision_words, decisions_note
from pipeline.core.contracts.documents import (
    Box,
    CardSpec,
    Document,
    DocumentKind,
    DocumentInfo,
    DocumentMeta,
    Line,
    LineTable,
    Page,
    PageTable,
    Word,
    WordBoxes,
    WordList,
)
from pipeline.core.contracts.proposals import (
    ChatMessage,
    GenerationAttempt,
    GenerationRecord,
    Proposal,
    ProposedCitation,
)
from pipeline.core.contracts.reading import FormFound, QuestionReading
from pipeline.core.contracts.requests import Request
from pipeline.core.contracts.retrieval import Candidate, Retrieval, TableComparison
from pipeline.core.contracts.settings import IndexSettings, Settings
from pipeline.core.contracts.trace import TRACE_VERSION, Abstention, DocumentRecord, EvidenceSpan, Stage, Trace
from pipeline.core.contracts.verdicts import (
    CHECK_NAMES,
    SCHEMA_VERSION,
    Answer,
    CheckName,
    CheckResult,
    Citation,
    CitationCheck,
    ClaimVerdict,
    JudgeCall,
    SupportSentence,
    SupportVerdict,
)

__all__ = [
    'LineTable',
    'REASON_WORDS',
    'Decision',
    'decision_words',
    'decisions_note',
    'FormFound',
    'QuestionReading',
    'Abstention',
    'Answer',
    'Box',
    'CHECK_NAMES',
    'Candidate',
    'CardSpec',
    'ChatMessage',
    'CheckName',
    'CheckResult',
    'Chunk',
    'ChunkKind',
    'Citation',
    'CitationCheck',
    'ClaimVerdict',
    'Context',
    'Document',
    'DocumentKind',
    'DocumentInfo',
    'DocumentMeta',
    'DocumentRecord',
    'EvidenceSpan',
    'Frozen',
    'GenerationAttempt',
    'GenerationRecord',
    'IndexSettings',
    'JudgeCall',
    'Line',
    'PackedLine',
    'PackedSource',
    'Page',
    'PageTable',
    'Proposal',
    'ProposedCitation',
    'REASON_CODES',
    'ReasonCode',
    'Request',
    'Retrieval',
    'SCHEMA_VERSION',
    'Settings',
    'Span',
    'Stage',
    'SupportSentence',
    'SupportVerdict',
    'TRACE_VERSION',
    'TableComparison',
    'Trace',
    'Word',
    'WordBoxes',
    'WordList',
]
