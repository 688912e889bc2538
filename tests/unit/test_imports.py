"""The import rules of docs/development.md as a check: Flask at the edges only, leaves stay leaves, the evaluation
apart."""

import ast
import copy
import os
import subprocess
import sys
from pathlib import Path

import sourcecheck

PACKAGE = Path(sourcecheck.__file__).parent
EDGES = {"serve", "cli.py", "__main__.py"}  # may use Flask
WEB = {"flask", "click", "werkzeug"}
LLM_MAY_IMPORT = {
    "sourcecheck.errors",
    "sourcecheck.text.words",
    "sourcecheck.text.numerals",
    "sourcecheck.config",
    "sourcecheck.llm",
}
# Reads of llama-cpp-python's internals (not our modules): the prefix cache needs them; pyproject pins the
# versions they are tested with. Listed so that a new private read anywhere fails, and a removed one is noticed.
THIRD_PARTY_PRIVATE = {("llm/llama_cpp.py", "_input_ids"), ("llm/llama_cpp.py", "_ctx"), ("llm/llama_cpp.py", "_model")}


def modules():
    """{"check.py": ast, "llm/base.py": ast, ...} for every module of the package."""
    return {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(), str(p)) for p in sorted(PACKAGE.rglob("*.py"))}


def imports(rel, tree, top_level_only=False):
    """Absolute names this module imports (relative imports resolved), with the line of each."""
    package = ["sourcecheck", *rel.split("/")[:-1]]
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            yield name, node.lineno
            # `from sourcecheck import llm` imports the subpackage too
            yield from ((f"{name}.{a.name}", node.lineno) for a in node.names)


def within(name, prefix):
    return name == prefix or name.startswith(prefix + ".")


def test_the_core_imports_no_web_framework():
    bad = [
        f"{rel}:{line} {name}"
        for rel, tree in modules().items()
        if rel.split("/")[0] not in EDGES
        for name, line in imports(rel, tree)
        if name.split(".")[0] in WEB
    ]
    assert bad == []


def test_errors_is_a_leaf():
    bad = [
        f"errors.py:{line} {name}"
        for name, line in imports("errors.py", modules()["errors.py"])
        if within(name, "sourcecheck")
    ]
    assert bad == []


def test_llm_imports_only_errors_text_config_and_itself():
    bad = [
        f"{rel}:{line} {name}"
        for rel, tree in modules().items()
        if rel.startswith("llm/")
        for name, line in imports(rel, tree)
        if within(name, "sourcecheck") and name != "sourcecheck" and not any(within(name, m) for m in LLM_MAY_IMPORT)
    ]
    assert bad == []


def test_the_library_s_parts_do_not_import_the_library():
    # library/__init__.py is the facade over its records, chunks and search; they (and what they use) stay below it:
    # they import their sibling modules, never the facade's own names nor the check.
    trees = modules()
    facade = {n.name for n in trees["library/__init__.py"].body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    parts = [rel for rel in trees if rel.startswith("library/") and rel != "library/__init__.py"]
    assert len(parts) >= 8 and "Library" in facade
    bad = [
        f"{rel}:{line} {name}"
        for rel in parts
        for name, line in imports(rel, trees[rel])
        if name in {f"sourcecheck.library.{n}" for n in facade} or within(name, "sourcecheck.check")
    ]
    assert bad == []


def without_type_checking(tree):
    """The module without its `if TYPE_CHECKING:` blocks (annotations only: no import at run time)."""
    tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                kept = [
                    s for s in stmts if not (isinstance(s, ast.If) and ast.unparse(s.test).endswith("TYPE_CHECKING"))
                ]
                setattr(node, field, kept)
    return tree


def test_each_stage_imports_only_the_stages_below_it():
    """The floors of docs/development.md: text at the bottom, then the PDF reading, the library, the conflicts and
    judging, the check, and serving on top; Zotero beside the library. A stage importing one above it fails."""
    floor = {
        "text": 0,
        "llm": 0,
        "pdf": 1,
        "library": 2,
        "zotero": 3,
        "conflict": 3,
        "judging": 4,
        "evidence": 1,
        "check": 5,
        "report": 5,
        "serve": 6,
    }

    def stage(name):
        first = name.split(".")[1] if name.startswith("sourcecheck.") else None
        return first.removesuffix(".py") if first else None

    bad = []
    for rel, tree in modules().items():
        own = rel.split("/")[0].removesuffix(".py")
        if own not in floor:
            continue
        for name, line in imports(rel, without_type_checking(tree)):
            other = stage(name)
            if other in floor and other != own and floor[other] > floor[own]:
                bad.append(f"{rel}:{line} {name}")
    assert bad == []


def test_the_product_does_not_import_the_evaluation(tmp_path):
    # sourcecheck_eval depends on the product, never the reverse: `sourcecheck eval` reaches the CLI through an entry
    # point (cli.PLUGINS), loaded only when a command other than the product's own is asked for.
    bad = [
        f"{rel}:{line} {name}"
        for rel, tree in modules().items()
        for name, line in imports(rel, tree)
        if within(name, "sourcecheck_eval") or within(name, "sourcecheck.eval")
    ]
    assert bad == []
    assert not (PACKAGE / "eval").exists()
    # What `sourcecheck serve` and the CLI's own commands load, checked in a fresh interpreter.
    script = (
        "import sys; from sourcecheck.serve.app import create_app; from sourcecheck import cli; "
        "create_app({'INDEX_DIR': sys.argv[1], 'BACKEND': 'fake', 'EMBEDDINGS': 'hash', 'TOKEN': 't'}); "
        "cli.main(['models']); "
        "print(sorted(m for m in sys.modules if m.startswith(('sourcecheck_eval', 'sourcecheck.eval'))))"
    )
    env = {**os.environ, "SOURCECHECK_MODELS_DIR": str(tmp_path / "models")}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "index")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    ).stdout.strip()
    assert out.splitlines()[-1] == "[]"


def private_reads():
    """{(module, _name): [reads]} for each `x._name` with x not self/cls, where the module does not define _name."""
    found = {}
    for rel, tree in modules().items():
        own = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                and node.attr not in own
            ):
                found.setdefault((rel, node.attr), []).append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reads_another_modules_private_attributes():
    found = private_reads()
    assert {key: lines for key, lines in found.items() if key not in THIRD_PARTY_PRIVATE} == {}
    assert sorted(THIRD_PARTY_PRIVATE - set(found)) == []  # no longer read: shrink the list


def mirror_names(rel):
    """The test files that may hold a module's tests: test_<stem>.py, or test_<package>_<stem>.py (a package's
    __init__ is the package: pdf/__init__.py → test_pdf.py; serve/api/meta.py → test_api_meta.py)."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = {f"test_{parts[-1]}.py"}
    if len(parts) > 1:
        names.add(f"test_{parts[-2]}_{parts[-1]}.py")
    return names


def test_every_module_with_logic_has_a_test_file_named_after_it():
    """docs/development.md: a module's tests are in tests/unit/test_<module>.py, or tests/integration/ where they
    need a real component; a newcomer finds them from the file's name."""
    tests = Path(__file__).parent.parent
    present = {p.name for folder in ("unit", "integration") for p in (tests / folder).glob("test_*.py")}
    missing = []
    for rel, tree in modules().items():
        has_logic = any(isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) for n in tree.body)
        if has_logic and rel != "__main__.py" and not mirror_names(rel) & present:
            missing.append(f"{rel} → {' or '.join(sorted(mirror_names(rel)))}")
    assert not missing, "modules without a test file named after them:\n" + "\n".join(missing)
