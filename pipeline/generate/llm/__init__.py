"""A language model as a producer: any OpenAI-compatible Chat Completions server; its reply is a proposal."""
