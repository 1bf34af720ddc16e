"""Which release a project runs: version order, pins in every supported file, the upward search, metadata."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_device import versions
from flake8_device.versions import Version, VersionRange, exact_pin, pinned_version


def v(text: str) -> Version:
    parsed = Version.parse(text)
    assert parsed is not None, text
    return parsed


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("0.14.1", "0.14.2"),
        ("0.14.2", "0.14.10"),
        ("2.3.3", "2.4.0"),
        ("2.4.0.dev20240501", "2.4.0rc1"),
        ("2.4.0rc1", "2.4.0"),
        ("2.4.0a2", "2.4.0b1"),
        ("2.4.0", "2.4.0.post1"),
        ("0.21.1", "0.21.2"),
        ("1!0.1", "1!0.2"),
        ("9.9", "1!0.1"),
    ],
)
def test_versions_compare_like_pep_440(lower: str, higher: str) -> None:
    assert v(lower) < v(higher) and not v(higher) < v(lower)


def test_trailing_zeros_and_local_labels_do_not_matter() -> None:
    assert v("2.4").key == v("2.4.0").key == v("v2.4.0+cu121").key


@pytest.mark.parametrize("text", ["", "latest", "1.2.x", "==1.2", "1..2"])
def test_garbage_is_no_version(text: str) -> None:
    assert Version.parse(text) is None


def test_ranges_include_introduced_and_exclude_fixed() -> None:
    affected = VersionRange(v("0.14.1"), v("0.14.3"))
    assert [str(x) for x in map(v, ["0.14.0", "0.14.1", "0.14.2", "0.14.3", "0.14.5"]) if x in affected] == [
        "0.14.1",
        "0.14.2",
    ]
    before = VersionRange(None, v("2.4.0"))
    assert v("1.9.5") in before and v("2.3.3") in before and v("2.4.0") not in before
    assert before.describe() == "before 2.4.0"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("deepspeed==0.14.2", ("deepspeed", "0.14.2")),
        ("DeepSpeed == 0.14.2 ; python_version >= '3.8'", ("deepspeed", "0.14.2")),
        ("pytorch_lightning[extra]===2.3.3", ("pytorch-lightning", "2.3.3")),
        ("lightning>=2.0,==2.3.3", ("lightning", "2.3.3")),
        ("deepspeed>=0.14", ("deepspeed", None)),
        ("deepspeed==0.14.*", ("deepspeed", None)),
        ("deepspeed", ("deepspeed", None)),
    ],
)
def test_exact_pins(line: str, expected: tuple[str, str | None]) -> None:
    assert exact_pin(line) == expected


def test_requirement_lines_skip_comments_options_and_join_continuations() -> None:
    text = "# comment\n-r base.txt\n--index-url x\ntorch==2.3.0  # pinned\ndeepspeed==\\\n0.14.2\n\n"
    assert list(versions.requirement_lines(text)) == ["torch==2.3.0", "deepspeed== 0.14.2"]


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def found(package: str, path: Path) -> tuple[str, str] | None:
    versions.pins_in_directory.cache_clear()
    result = pinned_version(package, str(path))
    return None if result is None else (str(result.version), result.source)


def test_pins_from_requirements_files(tmp_path: Path) -> None:
    root = project(tmp_path, {"requirements-train.txt": "deepspeed==0.14.2\n", "src/train.py": ""})
    assert found("deepspeed", root / "src" / "train.py") == ("0.14.2", "pinned in requirements-train.txt")
    assert found("mosaicml", root / "src" / "train.py") is None


def test_pins_from_a_requirements_directory(tmp_path: Path) -> None:
    root = project(tmp_path, {"requirements/gpu.txt": "mosaicml==0.26.0\n"})
    assert found("mosaicml", root) == ("0.26.0", "pinned in gpu.txt")


def test_pins_from_pyproject_project_and_poetry(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": """
                [project]
                dependencies = ["lightning==2.3.3", "deepspeed>=0.14"]
                [project.optional-dependencies]
                mosaic = ["mosaicml==0.20.0"]
                [tool.poetry.dependencies]
                deepspeed = "0.14.1"
                torch = "^2.3"
            """
        },
    )
    assert found("lightning", root) == ("2.3.3", "pinned in pyproject.toml")
    assert found("mosaicml", root) == ("0.20.0", "pinned in pyproject.toml")
    assert found("deepspeed", root) == ("0.14.1", "pinned in pyproject.toml")
    assert found("torch", root) is None


def test_pins_from_setup_cfg(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "setup.cfg": """
                [options]
                install_requires =
                    numpy
                    pytorch-lightning==1.9.5
                [options.extras_require]
                ds = deepspeed==0.14.2
            """
        },
    )
    assert found("pytorch_lightning", root) == ("1.9.5", "pinned in setup.cfg")
    assert found("deepspeed", root) == ("0.14.2", "pinned in setup.cfg")


def test_lock_files_come_first(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "requirements.txt": "deepspeed==0.14.5\n",
            "poetry.lock": '[[package]]\nname = "deepspeed"\nversion = "0.14.2"\n',
            "Pipfile.lock": '{"default": {"mosaicml": {"version": "==0.25.1"}}}',
        },
    )
    assert found("deepspeed", root) == ("0.14.2", "pinned in poetry.lock")
    assert found("mosaicml", root) == ("0.25.1", "pinned in Pipfile.lock")


def test_the_nearest_directory_wins_and_the_search_stops_at_the_repository(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("deepspeed==0.10.0\n")  # outside the repository
    root = project(
        tmp_path / "repo",
        {"requirements.txt": "deepspeed==0.14.5\n", "pkg/requirements.txt": "deepspeed==0.14.2\n", "other/x.py": ""},
    )
    assert found("deepspeed", root / "pkg" / "x.py") == ("0.14.2", "pinned in requirements.txt")
    assert found("deepspeed", root / "other" / "x.py") == ("0.14.5", "pinned in requirements.txt")
    (root / "requirements.txt").unlink()
    assert found("deepspeed", root / "other" / "x.py") is None


def test_broken_files_are_no_source_never_a_crash(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": "[project\nthis is not toml",
            "setup.cfg": "[options\n",
            "Pipfile.lock": "{not json",
            "uv.lock": "[[package]]\nname = 3\n",
            "requirements.txt": "\x00\x01garbage ==\n",
        },
    )
    assert found("deepspeed", root) is None


def test_resolution_order_override_then_pins_then_installed(tmp_path: Path) -> None:
    root = project(tmp_path, {"requirements.txt": "deepspeed==0.14.2\n"})
    versions.pins_in_directory.cache_clear()
    resolved = versions.resolve(["DeepSpeed"], str(root), {"deepspeed": "0.14.5"})
    assert resolved is not None and (str(resolved.version), resolved.source) == ("0.14.5", "configured")
    resolved = versions.resolve(["pytorch-lightning"], str(root), {"pytorch_lightning": "2.3.3"})
    assert resolved is not None and str(resolved.version) == "2.3.3"
    resolved = versions.resolve(["deepspeed"], str(root), {})
    assert resolved is not None and resolved.source == "pinned in requirements.txt"
    resolved = versions.resolve(["pytest"], str(root), {})
    assert resolved is not None and resolved.source == "installed"


def test_installed_metadata_is_read_from_the_path(tmp_path: Path) -> None:
    """A fake distribution on ``sys.path`` of a fresh interpreter is found by ``importlib.metadata``."""
    info = tmp_path / "site" / "deepspeed-0.14.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: deepspeed\nVersion: 0.14.2\n")
    code = "from flake8_device import versions; r = versions.installed_version('deepspeed'); print(r.version, r.source)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "0.14.2 installed\n"


def test_without_a_toml_reader_toml_sources_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.9/3.10 without ``tomli``: pyproject.toml and TOML lock files are no source, and nothing breaks."""
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\ndependencies = ["deepspeed==0.14.2"]\n',
            "uv.lock": '[[package]]\nname = "mosaicml"\nversion = "0.26.0"\n',
            "requirements.txt": "lightning==2.3.3\n",
        },
    )
    monkeypatch.setitem(sys.modules, "tomllib", None)  # makes `import tomllib` raise ImportError
    monkeypatch.setitem(sys.modules, "tomli", None)
    assert found("deepspeed", root) is None and found("mosaicml", root) is None
    assert found("lightning", root) == ("2.3.3", "pinned in requirements.txt")
    monkeypatch.undo()
    assert found("deepspeed", root) == ("0.14.2", "pinned in pyproject.toml")
