"""Reusable contract test suites: what every implementation of a part's Protocol must do, written once.

Each suite is a class of pytest tests over a fixture the implementation's test provides (the Haystack
document-store pattern): subclass it, provide the fixture, and name the registration it covers.

    from pipeline.testing import ParserContract

    class TestMyParser(ParserContract):
        registered_as = "my-type"

        @pytest.fixture
        def parser(self):
            return MyParser()

        @pytest.fixture
        def sample(self):
            return Path("example.my").read_bytes(), "example.my"

Importing this package needs pytest (a development dependency); the product never imports it.
"""

from pipeline.testing.contracts import (
    EmbedderContract,
    GeneratorContract,
    ParserContract,
    SupportJudgeContract,
    VectorStoreContract,
    sample_context,
)

__all__ = ["EmbedderContract", "GeneratorContract", "ParserContract", "SupportJudgeContract", "VectorStoreContract",
           "sample_context"]
