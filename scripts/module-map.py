#!/usr/bin/env python3
"""Prints the module map of docs/design.md: one line per source file, from its `//!` docs.

Usage: python3 scripts/module-map.py [--write]
With --write, replaces the map between the module-map markers of docs/design.md in place.
The test `design_doc::the_module_map_names_every_source_file` checks the map is complete.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "design.md"
START, END = "<!-- module-map:start -->", "<!-- module-map:end -->"


def summary(path: pathlib.Path) -> str:
    """The first sentence of a file's `//!` docs, joined across lines."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//!"):
            break
        text = line[3:].strip()
        if not text:
            if lines:
                break
            continue
        lines.append(text)
    text = " ".join(lines)
    match = re.match(r"(.+?\.)(\s|$)", text)
    return (match.group(1) if match else text) or "(no module docs)"


def module_map() -> str:
    files = sorted(p for p in (ROOT / "src").rglob("*.rs"))
    return "\n".join(f"- `{p.relative_to(ROOT)}`: {summary(p)}" for p in files)


def main() -> None:
    text = module_map()
    if "--write" not in sys.argv:
        print(text)
        return
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
