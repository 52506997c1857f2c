"""The evidence pipeline: parse → chunk → metadata → index → retrieve → pack → generate → verify."""
