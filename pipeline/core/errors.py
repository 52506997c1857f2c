"""The errors the pipeline raises: each is one line naming what went wrong and where (`subject: problem`).

    RagError         the base: something the caller must fix, said in one line (the CLI exits 2 with it,
    │                the app shows it as a message, never a traceback)
    ├── InputError   a file or request refused; nothing from it is indexed (also a ValueError)
    ├── ConfigError  a configuration the engine cannot run with: an unknown part, a bad environment value,
    │                a model server that is not configured
    └── StoreError   a vector or document store that cannot be opened, read or written (a corrupt folder, a
                     Chroma server that is down); a failed write leaves the store as it was

A refusal to answer is not an error: the evidence not justifying an answer is an `Abstention`
(`pipeline.core.contracts`), data in the trace with its reason code and stage.
"""


class RagError(Exception):
    """One line: `subject: problem` (the subject is a file name, a setting, a store; cut to 120 characters)."""

    def __init__(self, subject: str, problem: str):
        self.subject = subject
        self.problem = problem
        label = subject if len(subject) <= 120 else subject[:119] + "…"
        super().__init__(f"{label}: {problem}")

    @property
    def filename(self) -> str:
        """The subject, under the name it has always had for a refused file."""
        return self.subject


class InputError(RagError, ValueError):
    """A file or request the pipeline refuses; nothing from it is indexed."""


class ConfigError(RagError):
    """A configuration the engine cannot run with (an unknown part, a bad environment value)."""


class StoreError(RagError):
    """A vector or document store that cannot be opened, read or written; the store is left as it was."""


def shown(value: object, limit: int = 40) -> str:
    """A user-supplied value as it may appear in an error message: repr'd, one line, at most `limit` chars.

    Error messages travel to logs and toasts; a value that is megabytes long (or expands to that) must not.
    """
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value[: limit * 4] if isinstance(value, str) else value)
    else:  # a container is never turned into text: an aliased YAML list can expand to gigabytes
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


_OUT_OF_MEMORY = ("malloc", "out of memory", "cannot allocate", "memory allocation failed", "no memory")


def out_of_memory(error: BaseException) -> bool:
    """Whether `error` says memory ran out (a MemoryError, or a C library's own words for it): a parser must let it
    through instead of calling the file corrupt, so the parsing worker says the file needed more memory."""
    text = f"{type(error).__name__} {error}".lower()
    return isinstance(error, MemoryError) or any(words in text for words in _OUT_OF_MEMORY)
