"""``[tool.flake8-device]`` in pyproject.toml, through the CLI; and the same settings as flake8 options."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import BUG, run, write
from flake8_device import cli
from flake8_device.registry import rule_by_code
from flake8_device.configuration.discovery import load_settings
from flake8_device.configuration.pyproject import read_table
from flake8_device.configuration.settings import ConfigError

MOVE_FUNCTION_SOURCE = (
    "import torch\ndef f(device):\n    a = ship(torch.ones(3), device)\n    return a + torch.zeros(3)\n"
)


def pyproject(root: Path, body: str) -> Path:
    return write(root / "pyproject.toml", '[project]\nname = "demo"\n\n[tool.flake8-device]\n' + body)


def test_select_and_ignore_from_the_configuration_and_flags_override_them(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    pyproject(tmp_path, 'select = ["DEV2"]\n')
    assert run("bug.py", cwd=tmp_path).returncode == 0
    assert run("--select", "DEV1", "bug.py", cwd=tmp_path).returncode == 1
    pyproject(tmp_path, 'extend-ignore = ["DEV101"]\n')
    assert run("bug.py", cwd=tmp_path).returncode == 0
    assert run("--list-rules", cwd=tmp_path).stdout.splitlines()[0] == "DEV101  off  submodule-assigned-after-move"
    pyproject(tmp_path, 'ignore = "DEV1"\nextend-select = ["DEV101"]\n')  # flake8's comma-separated habit works too
    assert run("bug.py", cwd=tmp_path).returncode == 1


def test_per_file_ignores_are_relative_to_the_configuration(tmp_path: Path) -> None:
    for name in ("src/bug.py", "tests/bug.py", "tests/deep/bug.py", "scripts/tool.py"):
        write(tmp_path / name, BUG)
    pyproject(tmp_path, '[tool.flake8-device.per-file-ignores]\n"tests/*" = ["DEV1"]\n"tool.py" = ["DEV101"]\n')
    result = run(".", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["./src/bug.py"]
    # From a subdirectory, the patterns still mean the same files.
    inner = run(".", cwd=tmp_path / "tests")
    assert (inner.returncode, inner.stdout) == (0, "")
    # A file read from stdin is configured by the name it is given.
    assert run("--stdin-filename", str(tmp_path / "tests" / "x.py"), "-", stdin=BUG).returncode == 0
    assert run("--stdin-filename", str(tmp_path / "src" / "x.py"), "-", stdin=BUG).returncode == 1
    override = run("--per-file-ignores", "src/*:DEV101", ".", cwd=tmp_path)
    assert sorted(line.split(":")[0] for line in override.stdout.splitlines()) == [
        "./scripts/tool.py",
        "./tests/bug.py",
        "./tests/deep/bug.py",
    ]


def test_exclude_applies_to_the_walk_and_with_force_exclude_to_named_files(tmp_path: Path) -> None:
    write(tmp_path / "generated" / "bug.py", BUG)
    write(tmp_path / ".venv" / "bug.py", BUG)
    pyproject(tmp_path, 'extend-exclude = ["generated"]\n')
    assert run(".", cwd=tmp_path).returncode == 0
    # A file named explicitly is checked, under default and user excludes alike (ruff's rule) ...
    assert run("generated/bug.py", cwd=tmp_path).returncode == 1
    assert run(".venv/bug.py", cwd=tmp_path).returncode == 1
    # ... unless --force-exclude says otherwise, as the pre-commit hooks do (they name files one by one).
    for named in ("generated/bug.py", ".venv/bug.py"):
        forced = run("--force-exclude", named, cwd=tmp_path)
        assert forced.returncode == 0, forced.stdout
        warning = "flake8-device: warning: No Python files found (1 named path excluded by --force-exclude)\n"
        assert forced.stderr == warning
    pyproject(tmp_path, 'extend-exclude = ["generated"]\nforce-exclude = true\n')
    assert run("generated/bug.py", cwd=tmp_path).returncode == 0
    assert run("--no-force-exclude", "generated/bug.py", cwd=tmp_path).returncode == 1
    pyproject(tmp_path, 'exclude = ["generated"]\n')  # replaces the defaults: .venv is checked now
    assert run(".", cwd=tmp_path).stdout.startswith("./.venv/bug.py:7:14: DEV101")


def test_extra_move_functions_and_versions(tmp_path: Path) -> None:
    write(tmp_path / "f.py", MOVE_FUNCTION_SOURCE)
    assert run("f.py", cwd=tmp_path).stdout == ""
    pyproject(tmp_path, 'device-move-functions = ["ship"]\n\n[tool.flake8-device.versions]\ntorch = "2.1.0"\n')
    assert "DEV201" in run("f.py", cwd=tmp_path).stdout
    settings = load_settings(tmp_path / "pyproject.toml")
    assert settings.versions == (("torch", "2.1.0"),)
    args = cli.build_parser().parse_args(["--device-versions", "deepspeed=0.14.0,torch=2.4.0", "."])
    config = cli.flag_settings(args).over(settings).analysis_config()
    assert config.versions == (("deepspeed", "0.14.0"), ("torch", "2.4.0"))  # flags win
    assert "ship" in config.move_functions


def test_the_nearest_configuration_upward_is_used_and_isolated_ignores_it(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "sub" / "bug.py", BUG)
    pyproject(tmp_path, 'select = ["DEV2"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "inner"\n')  # no table: keep looking
    assert run("sub/bug.py", cwd=tmp_path / "pkg").returncode == 0
    assert run("--isolated", "sub/bug.py", cwd=tmp_path / "pkg").returncode == 1
    other = write(tmp_path / "other.toml", '[tool.flake8-device]\nselect = ["DEV1"]\n')
    assert run("--config", str(other), "sub/bug.py", cwd=tmp_path / "pkg").returncode == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("select = 3\n", "[tool.flake8-device] select: expected a list of strings, got the number 3"),
        ('selct = ["DEV1"]\n', "[tool.flake8-device] selct: unknown setting; known: select, extend-select"),
        (
            'extend_ignore = ["DEV1"]\n',
            "[tool.flake8-device] extend_ignore: unknown setting (did you mean 'extend-ignore'?)",
        ),
        ('ignore = ["E501"]\n', "[tool.flake8-device] ignore: 'E501' is not a flake8-device code or prefix"),
        ('per-file-ignores = ["tests/*"]\n', "[tool.flake8-device] per-file-ignores: expected a table of patterns"),
        (
            'per-file-ignores = {"tests/*" = 1}\n',
            "[tool.flake8-device] per-file-ignores.tests/*: expected a list of codes",
        ),
        (
            'device-move-functions = ["ship it"]\n',
            "[tool.flake8-device] device-move-functions: 'ship it' is not a function",
        ),
        ("versions = {torch = 2}\n", "[tool.flake8-device] versions.torch: expected a version string"),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_bad_configuration_is_one_line_naming_the_key(tmp_path: Path, body: str, message: str) -> None:
    write(tmp_path / "bug.py", BUG)
    pyproject(tmp_path, body)
    result = run("bug.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"flake8-device: {tmp_path.resolve() / 'pyproject.toml'}: ")
    assert message in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_bad_flags_are_one_line_too(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    for args, message in (
        (["--device-versions", "torch"], "--device-versions: 'torch' is not PACKAGE=VERSION"),
        (
            ["--per-file-ignores", "DEV101"],
            "--per-file-ignores: 'DEV101' comes before any file pattern (use PATTERN:CODES)",
        ),
        (["--config", "missing.toml"], "missing.toml: no such configuration file"),
    ):
        result = run(*args, "bug.py", cwd=tmp_path)
        assert (result.returncode, result.stderr) == (2, f"flake8-device: {message}\n")


def test_without_tomllib_or_tomli_the_message_says_what_is_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tomllib", None)  # makes `import tomllib` raise ImportError
    monkeypatch.setitem(sys.modules, "tomli", None)
    path = pyproject(tmp_path, 'select = ["DEV1"]\n')
    with pytest.raises(ConfigError, match=r"needs Python 3\.11\+ or the tomli package"):
        read_table(path)
    # A pyproject.toml that never mentions flake8-device is not even parsed.
    write(tmp_path / "pyproject.toml", '[project]\nname = "demo"\n')
    assert read_table(tmp_path / "pyproject.toml") is None


def readme_block(language: str) -> str:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(rf"```{language}\n(.*?)```", readme, re.S)
    assert blocks, f"expected a {language} block in the README"
    return blocks[0]  # the configuration example comes first


def test_the_readme_configuration_examples_work(tmp_path: Path) -> None:
    # A DEV202 bug where the examples' per-file-ignores switch DEV202 off.
    bug = rule_by_code("DEV202").code_block("Example")  # type: ignore[union-attr]
    write(tmp_path / "tests" / "test_model.py", bug)
    assert run(".", cwd=tmp_path).returncode == 1
    assert "DEV202" in flake8("--select", "DEV", ".", cwd=tmp_path).stdout
    write(tmp_path / "pyproject.toml", readme_block("toml"))
    result = run(".", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "All checks passed (1 file).\n")
    write(tmp_path / "tox.ini", readme_block("ini"))
    result = flake8(".", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


# -- the same settings under flake8 -------------------------------------------------------------------


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_flake8_reads_the_settings_from_its_own_configuration(tmp_path: Path) -> None:
    write(tmp_path / "f.py", MOVE_FUNCTION_SOURCE)
    write(tmp_path / "tests" / "bug.py", BUG)
    write(
        tmp_path / ".flake8",
        "[flake8]\nselect = DEV\ndevice-move-functions = ship\ndevice-versions = torch=2.1.0\n"
        "per-file-ignores =\n    tests/*: DEV101,DEV404\n",
    )
    result = flake8(".", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["./f.py"], result.stdout + result.stderr
    assert "DEV201" in result.stdout


def test_flake8_rejects_a_bad_version_option_in_one_line(tmp_path: Path) -> None:
    write(tmp_path / "f.py", "import torch\n")
    result = flake8("--isolated", "--device-versions", "torch", "f.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "flake8: --device-versions: 'torch' is not PACKAGE=VERSION\n"
