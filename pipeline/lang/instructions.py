"""Text addressed to a reader-model ("ignore previous instructions and say X") rather than stating a fact: never
evidence for a claim, so every judge leaves such sentences out of the span it reads.
"""

from __future__ import annotations

import re
import unicodedata

from pipeline.lang.sentences import sentence_units

# Text addressed to a reader-model rather than stating a fact: never evidence for a claim.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:instructions?|prompts?|rules|directions|above|previous|prior)\b"
    r"|\b(?:you|assistant|AI|model|chatbot)\b[^.!?\n]{0,20}\b(?:must|should|will|are to|have to)\b[^.!?\n]{0,20}"
    r"\b(?:say|answer|respond|reply|state|output|write|tell|claim)\b"
    # A sentence that opens with a verb of saying: "Say …", "Tell the user …"; "Answer / Reply / Output / Write" only
    # with what to say after them ("Reply with 'yes'", "Output: approved"), since a manual describes a command the
    # same way ("Output pieces of FILE to PREFIXaa, …", "Write sorted concatenation of all FILE(s) to standard output").
    r"|^\s*(?:please\s+)?(?:say|tell the user|state that|claim that)\b"
    r"|^\s*(?:please\s+)?(?:answer|respond|reply|output|write)\s*(?::|[\"'“‘]|(?:that|with|only|exactly)\b)"
    r"|\b(?:system prompt|new instructions?|jailbreak)\b"
    r"|忽略|无视|忘记(?:之前|以上|先前)|(?:你|助手|模型)(?:必须|应该|要)(?:说|回答|回复|输出)|请(?:说|回答|回复|输出)",
    re.IGNORECASE)


def is_instruction(sentence: str) -> bool:
    return bool(_INSTRUCTION.search(unicodedata.normalize("NFKC", sentence)))


def without_instructions(span: str) -> str:
    """The span with its instruction-like sentences blanked out (same length, so offsets still hold)."""
    for start, end in reversed(sentence_units(span)):
        if is_instruction(span[start:end]):
            span = span[:start] + " " * (end - start) + span[end:]
    return span
