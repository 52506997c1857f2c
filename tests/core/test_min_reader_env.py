"""RAG_MIN_READER sets the reader's threshold for an engine built from the environment (0: never loaded), and
the app's form keeps it: what the form does not show stays as the engine is configured."""

from __future__ import annotations

import pytest

from pipeline import Settings
from pipeline.core.errors import ConfigError
from pipeline.core.settings import EngineConfig
from ui.handlers import parse_settings


def test_the_environment_sets_the_readers_threshold():
    assert EngineConfig.from_env({"RAG_MIN_READER": "0"}).settings.min_reader == 0.0
    assert EngineConfig.from_env({}).settings.min_reader == Settings().min_reader > 0


@pytest.mark.parametrize("value", ["off", "1.5"])
def test_a_bad_value_is_one_configuration_error(value):
    with pytest.raises(ConfigError, match="RAG_MIN_READER"):
        EngineConfig.from_env({"RAG_MIN_READER": value})


def test_the_forms_settings_keep_the_engines_reader_threshold():
    base = EngineConfig.from_env({"RAG_MIN_READER": "0"}).settings
    settings = parse_settings(3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid", base)
    assert settings.min_reader == 0.0 and settings.top_k == 3
    assert parse_settings(3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid").min_reader == Settings().min_reader
