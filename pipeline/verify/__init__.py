"""Verify: every proposed citation proven against the source text or dropped (`verify.verifier`), then the kept
claims' cited sources checked against their siblings for a conflict (`verify.conflicts`). Whether a span supports a
claim is decided by a support judge, a family of parts (`verify.judges`)."""
