"""`pip install .` works: the wheel carries its data files, and installed defaults point outside the package."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sourcecheck.config import checkout_root, default_data_dir, user_data_dir

ROOT = Path(__file__).resolve().parents[2]
DATA_FILES = {
    "sourcecheck/prompts/verify.txt",
    "sourcecheck/prompts/critique.txt",
    "sourcecheck/calibration.json",
    "sourcecheck/llm/catalog.json",
    "sourcecheck/serve/api/openapi.json",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built offline from a copy of the sources (building in place would write into the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "backend", src / "backend", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(tmp / "dist"),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (path,) = (tmp / "dist").glob("sourcecheck-*.whl")
    return path


def test_the_wheel_carries_prompts_calibration_catalog_and_openapi(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert DATA_FILES <= names
    assert not [n for n in names if n.startswith(("models/", "index/", "tests/"))]


def test_the_wheel_carries_the_evaluation_as_a_package_of_its_own_that_adds_the_eval_command(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        commands = z.read(entry_points).decode()
    assert {"sourcecheck_eval/cli.py", "sourcecheck_eval/run.py", "sourcecheck_eval/public/wice.py"} <= names
    assert {
        "sourcecheck_eval/bench/__main__.py",
        "sourcecheck_eval/head.py",
        "sourcecheck_eval/bench/fave.jsonl.gz",
    } <= names
    assert not [n for n in names if n.startswith("sourcecheck/eval/")]
    assert "[sourcecheck.commands]\neval = sourcecheck_eval.cli:register" in commands  # found by sourcecheck/cli.py


def test_an_installed_package_keeps_its_data_outside_itself(wheel, tmp_path):
    site = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(site)
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOURCECHECK_") and k != "XDG_DATA_HOME"}
    env.update(HOME=str(home), PYTHONPATH=str(site))
    script = (
        "import json, sourcecheck; from sourcecheck.config import load_settings; "
        "from sourcecheck.llm.catalog import catalog; s = load_settings(); "
        "print(json.dumps([sourcecheck.__file__, s['INDEX_DIR'], s['MODELS_DIR'], len(catalog())]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    package, index_dir, models_dir, models = json.loads(out)
    assert Path(package).is_relative_to(site)  # the installed copy was imported, not the checkout
    assert Path(index_dir) == home / ".local" / "share" / "sourcecheck" / "index"
    assert Path(models_dir) == home / ".local" / "share" / "sourcecheck" / "models"
    assert models >= 1  # the catalog came with the package


def test_default_data_folders_for_a_checkout_and_for_an_install(tmp_path):
    checkout = tmp_path / "repo"
    (checkout / "backend" / "sourcecheck").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    assert checkout_root(checkout / "backend" / "sourcecheck") == checkout
    assert default_data_dir("index", checkout / "backend" / "sourcecheck") == str(checkout / "index")
    installed = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "sourcecheck"
    installed.mkdir(parents=True)
    assert checkout_root(installed) is None
    data = tmp_path / "data"
    assert default_data_dir("models", installed, {"XDG_DATA_HOME": str(data)}) == str(data / "sourcecheck" / "models")
    assert not Path(default_data_dir("models", installed)).is_relative_to(installed.parent)


def test_user_data_folder_follows_each_platform():
    assert user_data_dir({"LOCALAPPDATA": "C:/Users/a/AppData/Local"}, "win32") == Path(
        "C:/Users/a/AppData/Local/sourcecheck"
    )
    assert user_data_dir({}, "darwin") == Path.home() / "Library" / "Application Support" / "sourcecheck"
    assert user_data_dir({"XDG_DATA_HOME": "/x"}, "linux") == Path("/x/sourcecheck")
    assert user_data_dir({}, "linux") == Path.home() / ".local" / "share" / "sourcecheck"
