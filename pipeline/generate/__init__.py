"""Generate: packed context → a proposed answer with citations, never trusted. Producers are a family
(`pipeline.core.interfaces.Generator`): the extractive composer (`generate.extractive`, the default) and a language
model (`generate.llm`)."""
