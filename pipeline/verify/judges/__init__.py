"""Support judges: does a cited span say what a claim says? (`pipeline.core.interfaces.SupportJudge`), each one
class plus one registration below. A judge that accepts a faithful paraphrase is offered for a model's answers.
"""

from __future__ import annotations

from typing import Any

from pipeline.core.registry import JUDGES
from pipeline.generate import llm_configured


def _containment(config, tokenizer, **_: Any):
    from pipeline.verify.judges.containment import ContainmentJudge

    return ContainmentJudge(tokenizer, coverage=config.settings.support_coverage)


def _learned(**parts: Any):
    from pipeline.verify.judges.learned import learned_judge

    return learned_judge(**parts)


def _llm(**parts: Any):
    from pipeline.verify.judges.llm import llm_judge

    return llm_judge(**parts)


JUDGES.register("containment", _containment)
JUDGES.register("learned", _learned, label="learned judge (offline, no calls)", paraphrase=True)
JUDGES.register("llm", _llm, label="language model judge (one short call per claim)", paraphrase=True, remote=True,
                available=llm_configured)  # off unless named
