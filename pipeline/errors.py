"""Bad input is reported as one clear line naming the file and the problem."""


class InputError(ValueError):
    """A file or request the pipeline refuses; nothing from it is indexed."""

    def __init__(self, filename: str, problem: str):
        self.filename = filename
        self.problem = problem
        super().__init__(f"{filename}: {problem}")
