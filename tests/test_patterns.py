"""Small syntax helpers of the analysis, against what Python itself says."""

from __future__ import annotations

import libcst as cst
import pytest

from flake8_device.analysis.patterns import string_value

LITERALS = [
    '"cuda"',
    "'cpu'",
    'r"a\\b"',
    '"a\\nb"',
    '"\\x63uda"',
    'b"x"',
    '"""tri\nple"""',
    "f'x'",
    'u"x"',
    'rb"x"',
    'R"\\d"',
    "'''a'''",
    '"tab\\there"',
]


@pytest.mark.parametrize("source", LITERALS)
def test_string_value_is_what_python_evaluates(source: str) -> None:
    node = cst.parse_expression(source)
    expected = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    assert string_value(node) == (expected if isinstance(expected, str) else None)
