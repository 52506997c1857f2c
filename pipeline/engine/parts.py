"""The parts that ship with the product: importing this module imports every family, whose package registers its
shipped members (`ingest.parsers`, `index.embedders`, `index.stores`, `generate`, `verify.judges`, `question.forms`). Their factories
import a part only when one is built, so PyMuPDF, Chroma and the language-model client load only when used.
"""

from __future__ import annotations

import pipeline.generate  # noqa: F401 (registers the generators)
import pipeline.index.embedders  # noqa: F401 (registers the embedders)
import pipeline.index.stores  # noqa: F401 (registers the vector stores)
import pipeline.question.forms  # noqa: F401 (registers the question forms)
import pipeline.verify.judges  # noqa: F401 (registers the support judges)
from pipeline.core.registry import EMBEDDERS, FORMS, GENERATORS, JUDGES, PARSERS, VECTOR_STORES
from pipeline.ingest.parsers import registered_parsers

__all__ = ["EMBEDDERS", "FORMS", "GENERATORS", "JUDGES", "PARSERS", "VECTOR_STORES", "registered_parsers"]
