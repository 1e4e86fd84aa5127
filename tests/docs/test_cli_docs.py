"""docs/cli.md describes the command line the parser builds: every flag of every subcommand, the
values of every flag with a fixed set of them, and no flag the parser does not have; and every
``rankmeter ...`` command shown in README.md and docs/ uses only flags that exist."""

from __future__ import annotations

import argparse
import re

import pytest

from rankmeter.cli import build_parser
from tests.support import ROOT

CLI_MD = ROOT / "docs" / "cli.md"
HELP = ("-h", "--help")  # argparse adds them to every parser; the page says so once, at the top
# a flag inside documentation text: `--name` or a one-letter `-x` (a value may follow it: -M100, -l2)
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z](?![A-Za-z-]))")
# a flag followed by its values in a table cell: `--ties input|trec|...`
_VALUES = re.compile(r"(--[a-z][a-z0-9-]*) ([\w.]+(?:\|[\w.]+)+)")


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return parser, dict(action.choices)
    raise AssertionError("the rankmeter parser has no subcommands")


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of a parser (flags refused by name, hidden from --help, included)."""
    return {s for action in parser._actions for s in action.option_strings if s not in HELP}


def _choices(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    """Long flag -> its allowed values, for the flags that have a fixed set of them."""
    out = {}
    for action in parser._actions:
        if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
            long = [s for s in action.option_strings if s.startswith("--")]
            out[long[0]] = {str(c) for c in action.choices}
    return out


def _sections(text: str) -> dict[str, str]:
    """Subcommand -> the text of its ``## `rankmeter <subcommand>` `` section."""
    out = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        m = re.fullmatch(r"`rankmeter (\w+)`", head.strip())
        if m:
            out[m.group(1)] = body
    return out


def _first_cells(section: str) -> list[str]:
    """The first cell of every table row (the option column), ``\\|`` read as ``|``."""
    cells = []
    for line in section.splitlines():
        if line.startswith("|") and not re.match(r"\|[-|: ]+\|?$", line):
            cell = re.split(r"(?<!\\)\|", line)[1]
            if cell.strip() != "option":
                cells.append(cell.replace("\\|", "|"))
    return cells


def _listed(section: str) -> set[str]:
    """The flags of a section's option tables (first column)."""
    return {f for cell in _first_cells(section) for f in _FLAG.findall(cell)}


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """(subcommand, flags) of every ``rankmeter <subcommand> ...`` line of code blocks and code spans
    (a comment or a pipe ends the command; ``rankmeter --version`` has the subcommand "")."""
    lines = re.findall(r"^```\w*\n(.*?)^```", text, flags=re.M | re.S)
    snippets = [line for block in lines for line in block.splitlines()]
    snippets += re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))
    out = []
    for snippet in snippets:
        m = re.match(r"\s*rankmeter\s+(.*)", snippet)
        if not m:
            continue
        words = re.split(r"\s#|\|", m.group(1))[0].split()
        if not words:
            continue
        command = "" if words[0].startswith("-") else words[0]
        flags = [f for w in words if w.startswith("-") for f in _FLAG.findall(w)[:1]]
        out.append((command, flags))
    return out


def _doc_sections() -> dict[str, str]:
    return _sections(CLI_MD.read_text(encoding="utf-8"))


def test_every_subcommand_has_a_section_of_the_cli_page():
    _, subs = _parsers()
    assert set(_doc_sections()) == set(subs)


@pytest.mark.parametrize("command", ["eval", "compare", "demo", "metrics"])
def test_the_option_table_of_a_subcommand_lists_exactly_its_flags(command):
    _, subs = _parsers()
    section = _doc_sections()[command]
    listed = _listed(section)
    assert not _flags(subs[command]) - listed, f"docs/cli.md, rankmeter {command}: flags not documented"
    assert not listed - _flags(subs[command]), f"docs/cli.md, rankmeter {command}: flags the parser does not have"


def test_report_documents_its_own_flags_and_takes_the_rest_from_compare():
    # the report section lists what differs from compare (and says it takes compare's other options)
    _, subs = _parsers()
    report, compare = _flags(subs["report"]), _flags(subs["compare"])
    listed = _listed(_doc_sections()["report"])
    assert not (report - compare) - listed, "docs/cli.md, rankmeter report: flags not documented"
    assert not listed - report, "docs/cli.md, rankmeter report: flags the parser does not have"
    assert compare - report == {"--format"}, "report and compare differ by more than the section says"


@pytest.mark.parametrize("command", ["eval", "compare", "demo", "report", "metrics"])
def test_flags_named_anywhere_in_a_section_exist(command):
    # prose, examples and code spans: `--preset none`, `-c -M100`, `rankmeter eval ... -q`
    _, subs = _parsers()
    section = _doc_sections()[command]
    spans = [s for s in re.findall(r"`([^`\n]+)`", section) if s.startswith("-")]
    named = {f for s in spans for f in _FLAG.findall(s)}
    named |= {f for cmd, flags in _commands(section) if cmd == command for f in flags}
    assert not named - _flags(subs[command]), f"docs/cli.md, rankmeter {command}: unknown flags"


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_every_flag_with_fixed_values_lists_them_all(command):
    _, subs = _parsers()
    documented: dict[str, set[str]] = {}
    for cell in _first_cells(_doc_sections()[command]):
        for flag, values in _VALUES.findall(cell):
            documented[flag] = set(values.split("|"))
    assert documented == _choices(subs[command])


def test_every_rankmeter_command_in_the_docs_uses_existing_flags():
    parser, subs = _parsers()
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    seen = 0
    for f in files:
        for command, flags in _commands(f.read_text(encoding="utf-8")):
            target = parser if command == "" else subs.get(command)
            assert target is not None, f"{f.name}: `rankmeter {command}` is no subcommand"
            unknown = set(flags) - _flags(target) - set(HELP)
            assert not unknown, f"{f.name}: `rankmeter {command}` has no flag {sorted(unknown)}"
            seen += 1
    assert seen >= 10  # the examples of README, cli.md, compare.md and engines.md were found
