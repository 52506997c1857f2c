"""Language: tokenizing, numbers, names, negation and opposites, sentence splitting, and the forms of questions and
texts, for English and Chinese: the one place to add a language."""
