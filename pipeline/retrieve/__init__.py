"""Retrieve: question + explicit date, topic and groups → every readable chunk scored (BM25, dense, the question
form's own rankings), fused, gated and selected with its siblings (`retrieve.selection`)."""
