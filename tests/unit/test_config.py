from pathlib import Path

import pytest
from sourcecheck.config import SETTINGS, load_settings
from sourcecheck.errors import ConfigError

CONFIGURATION = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_every_setting_is_documented():
    readme = CONFIGURATION.read_text()
    missing = [s.name for s in SETTINGS if f"`SOURCECHECK_{s.name}`" not in readme]
    assert missing == []


def test_layers_defaults_environment_overrides():
    env = {"SOURCECHECK_PORT": "9000", "SOURCECHECK_TOP_K": "7", "SOURCECHECK_BACKEND": "fake"}
    s = load_settings({"BACKEND": "openai"}, environ=env)
    assert (s["PORT"], s["TOP_K"], s["BACKEND"]) == (9000, 7, "openai")


def test_bad_values_are_clear_errors():
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"SOURCECHECK_PORT": "eighty"})
    assert "SOURCECHECK_PORT" in err.value.message
    with pytest.raises(KeyError):
        load_settings({"NOPE": 1}, environ={})
