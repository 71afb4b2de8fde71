"""``cardtable CMD``: only CMD's module is imported, and its parser is the one the full
``cardtable`` parser has (the server processes the tests start pay no CPU for the others)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cardtable.cli import COMMANDS, build_parser


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_parses_its_arguments_as_the_full_parser_does(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    helps = []
    for parser in (build_parser(), build_parser(command)):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args([command, "--help"])
        assert stop.value.code == 0
        helps.append(capsys.readouterr().out)
    assert helps[0] == helps[1]
    assert f"usage: cardtable {command}" in helps[0]
    # no further arguments: the same namespace, or the same complaint about a required one
    outcomes = []
    for parser in (build_parser(), build_parser(command)):
        try:
            outcomes.append(vars(parser.parse_args([command])))
        except SystemExit as exc:
            outcomes.append({"exit": exc.code, "said": capsys.readouterr().err})
    assert outcomes[0] == outcomes[1]


def test_an_unknown_or_missing_command_still_lists_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["serv"], ["--help"]):
        with pytest.raises(SystemExit):
            build_parser(argv[0] if argv else None).parse_args(argv)
        said = capsys.readouterr()
        text = said.out + said.err
        assert all(name in text for name in COMMANDS), (argv, text)


def test_serve_imports_no_other_command() -> None:
    """A fresh interpreter: ``cardtable serve``'s parser leaves the other commands (and the
    arena, the analysis, httpx that they import) unimported."""
    code = (
        "import sys; from cardtable.cli import COMMANDS, build_parser; "
        "build_parser('serve').parse_args(['serve', '--port', '0']); "
        "print(sorted(m for m in COMMANDS.values() if m in sys.modules and m != COMMANDS['serve']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
