"""Reading the question: what it asks and how it leans on what was asked before (follow-ups)."""
