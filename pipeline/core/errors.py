"""Bad input is reported as one clear line naming the file and the problem."""


class InputError(ValueError):
    """A file or request the pipeline refuses; nothing from it is indexed."""

    def __init__(self, filename: str, problem: str):
        self.filename = filename
        self.problem = problem
        label = filename if len(filename) <= 120 else filename[:119] + "…"
        super().__init__(f"{label}: {problem}")


def shown(value: object, limit: int = 40) -> str:
    """A user-supplied value as it may appear in an error message: repr'd, one line, at most `limit` chars.

    Error messages travel to logs and toasts; a value that is megabytes long (or expands to that) must not.
    """
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value[: limit * 4] if isinstance(value, str) else value)
    else:  # a container is never turned into text: an aliased YAML list can expand to gigabytes
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"
