"""DeepSpeed JSON configs: the position-tracking parser, the checks with exact lines, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import run
from flake8_device import jsonpos, versions
from flake8_device.analysis.deepspeed import ConfigObject, ConfigValue, Position
from flake8_device.json_configs import lint_config
from flake8_device.registry import all_rules


def plain(value: ConfigValue) -> object:
    """The parsed tree as ``json.loads`` would give it."""
    inner = value.value
    if isinstance(inner, ConfigObject):
        return {key: plain(item) for key, item in inner.entries.items()}
    if isinstance(inner, list):
        return [plain(item) for item in inner]
    return inner


# -- the parser ---------------------------------------------------------------------------


def test_positions_of_keys_and_values() -> None:
    text = '{\r\n  "zero_optimization": {\r\n    "stage": 3,\r\n    "list": [1, "é", null]\r\n  }\r\n}'
    root = jsonpos.parse(text)
    zero = root.value.get("zero_optimization")  # type: ignore[union-attr]
    assert zero.key_anchor == Position(2, 2) and zero.anchor == Position(2, 23)
    stage = zero.value.get("stage")
    assert (stage.key_anchor, stage.anchor, stage.value) == (Position(3, 4), Position(3, 13), 3)
    items = zero.value.get("list").value
    assert [(i.anchor, i.value) for i in items] == [
        (Position(4, 13), 1),
        (Position(4, 16), "é"),
        (Position(4, 21), None),
    ]


def test_bom_nan_escapes_and_numbers() -> None:
    root = jsonpos.parse('\ufeff{"a": NaN, "b": -Infinity, "c": "\\u00e9\\n", "d": -1.5e3, "e": 10}')
    value = plain(root)
    assert isinstance(value, dict) and math.isnan(value.pop("a"))
    assert value == {"b": -math.inf, "c": "é\n", "d": -1500.0, "e": 10}
    assert root.value.get("b").anchor == Position(1, 16)  # type: ignore[union-attr]  (the BOM is no column)


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ('{"a": 1,}', (1, 9), "expected a key in double quotes"),
        ('{"a" 1}', (1, 6), "expected ':' after the key"),
        ("[1, 2", (1, 6), "expected ',' or ']'"),
        ('{\n  "a": tru\n}', (2, 8), "unexpected 't', a value was expected"),
        ('{"a": "unterminated}', (1, 7), "unterminated string or a control character inside it"),
        ('{"a": "\\x"}', (1, 7), "invalid escape in string"),
        ("{} {}", (1, 4), "unexpected data after the JSON value"),
        ("", (1, 1), "unexpected end of the file, a value was expected"),
        ("// comment\n{}", (1, 1), "unexpected '/', a value was expected"),
        ("[01]", (1, 3), "expected ',' or ']'"),
    ],
)
def test_malformed_json_names_line_and_column(text: str, where: tuple[int, int], reason: str) -> None:
    with pytest.raises(jsonpos.JsonError) as raised:
        jsonpos.parse(text)
    assert (raised.value.line, raised.value.col + 1, raised.value.reason) == (*where, reason)
    assert str(raised.value) == f"line {where[0]}, column {where[1]}: {reason}"


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(jsonpos.JsonError, match="nested too deeply"):
        jsonpos.parse("[" * 100_000)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 2]), st.booleans())
def test_parses_what_json_dumps_writes(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert plain(jsonpos.parse(text)) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]":,0123456789.-eEtrufalsn \n\\"abc', max_size=30))
def test_accepts_exactly_what_json_loads_accepts(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(jsonpos.JsonError):
            jsonpos.parse(text)
    else:
        assert plain(jsonpos.parse(text)) == expected


# -- the checks -----------------------------------------------------------------------------

RULES = all_rules()

# A Hugging Face ZeRO-3 config as shipped in many repositories: "auto" values, pin_memory on
# both sections, optimizer on the CPU and parameters "none". Nothing here is wrong.
HARMLESS = """{
  "fp16": {"enabled": "auto"},
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_clipping": 1.0,
  "zero_optimization": {
    "stage": 3,
    "offload_optimizer": {"device": "cpu", "pin_memory": true},
    "offload_param": {"device": "none", "pin_memory": true},
    "stage3_gather_16bit_weights_on_model_save": true
  }
}
"""

WRONG = """{
  "train_batch_size": 16,
  "zero_optimization": {
    "stage": 2,
    "offload_param": {
      "device": "nvme"
    },
    "offload_optimizer": {"device": "gpu", "pin_memory": true}
  }
}
"""


def findings(text: str, **kwargs: object) -> list[tuple[int, int, str]]:
    result = lint_config(text, RULES, **kwargs)  # type: ignore[arg-type]
    assert result.error is None, result.error
    return [(v.line, v.col + 1, v.code) for v in result.violations]


def test_real_problems_are_reported_at_their_lines() -> None:
    assert findings(WRONG) == [(5, 5, "DEV511"), (6, 17, "DEV512"), (8, 37, "DEV513")]


def test_harmless_oddities_stay_silent() -> None:
    assert findings(HARMLESS) == []


def test_stage_missing_means_zero() -> None:
    assert findings('{"zero_optimization": {"offload_param": {"device": "cpu"}}}') == [(1, 24, "DEV511")]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "my-package", "version": "1.0.0"}',
        "[1, 2, 3]",
        '{"zero_optimization": true}',
        '{"train_batch_size": 8, "offload_param": {"device": "gpu"}}',
    ],
)
def test_other_json_is_not_a_deepspeed_config(text: str) -> None:
    assert findings(text) == []


def test_the_advisory_needs_an_affected_release(tmp_path: Path) -> None:
    config = HARMLESS.replace('"gradient_clipping": 1.0', '"gradient_clipping": "auto"')
    (tmp_path / ".git").mkdir()
    path = tmp_path / "ds_config.json"
    assert findings(config, path=str(path)) == []
    (tmp_path / "requirements.txt").write_text("deepspeed==0.14.2\n")
    versions.pins_in_directory.cache_clear()  # pins are read once per directory and process
    assert findings(config, path=str(path)) == [(4, 3, "DEV601")]


# -- through the command line ----------------------------------------------------------------


def test_cli_reports_json_with_exact_lines(tmp_path: Path) -> None:
    (tmp_path / "ds_config.json").write_text(WRONG)
    (tmp_path / "zero3.json").write_text(HARMLESS)
    result = run("ds_config.json", "zero3.json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    # Display-only findings: the text line ends with the remedy.
    assert result.stdout.splitlines() == [
        "ds_config.json:5:5: DEV511 `offload_param` to `nvme` has no effect at ZeRO stage 2: "
        "only stage 3 offloads parameters (to fix: use ZeRO stage 3, or remove `offload_param`)",
        "ds_config.json:6:17: DEV512 `offload_param` offloads to `nvme` but names no `nvme_path` for the swap files"
        ' (to fix: add `"nvme_path"` with a directory on a local NVMe disk)',
        "ds_config.json:8:37: DEV513 `offload_optimizer` device `gpu` is not one DeepSpeed accepts "
        "(`cpu`, `nvme` or `none`) (to fix: use `none` (keep it on the GPU), `cpu` or `nvme`)",
    ]
    assert run("--extend-ignore", "DEV51", "ds_config.json", cwd=tmp_path).returncode == 0


def test_cli_malformed_json_is_one_line_and_exit_two(tmp_path: Path) -> None:
    (tmp_path / "ds_config.json").write_text('{\n  "zero_optimization": {"stage": 3,}\n}\n')
    result = run("ds_config.json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "flake8-device: ds_config.json: invalid JSON at line 2, column 36: expected a key in double quotes\n"
    )
    assert result.stdout == ""


def test_cli_unreadable_encoding_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "ds_config.json").write_bytes(b'{"a": "\xff\xfe"}')
    result = run("ds_config.json", cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_cli_json_on_stdin_and_with_fix(tmp_path: Path) -> None:
    result = run("-", "--stdin-filename", "configs/ds.json", cwd=tmp_path, stdin=WRONG)
    assert result.returncode == 1 and result.stdout.startswith("configs/ds.json:5:5: DEV511 ")
    fixed = run("--fix", "-", "--stdin-filename", "ds.json", cwd=tmp_path, stdin=WRONG)
    assert fixed.stdout == WRONG  # nothing to fix: the input passes through unchanged
    path = tmp_path / "ds_config.json"
    path.write_text(WRONG)
    assert run("--fix", "ds_config.json", cwd=tmp_path).returncode == 1
    assert path.read_text() == WRONG


def test_directories_are_walked_for_python_only(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ds_config.json").write_text(WRONG)
    assert run(".", cwd=tmp_path).returncode == 0
    assert run("configs/ds_config.json", cwd=tmp_path).returncode == 1
