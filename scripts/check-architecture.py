#!/usr/bin/env python3
"""Every file, folder, type and target ARCHITECTURE.md names exists.

Reads every `backticked` name of ARCHITECTURE.md (and every name in its ``` blocks that looks
like a type or a folder) and fails, naming each, when one does not exist:

  a path (it has a `/`, or ends in .swift, .md, .proto, .py, .sh or .txt)
      the file or folder exists, from the repository root; a name that is not found there is
      looked for under each folder the same line of the document names (`Handlers/` in the
      line of `Sources/SwiftFrameNIO/`) and, for a bare folder name, among the folders of
      Sources/, Tests/, Plugins/ and Fixtures/
  a type (`FrameClient`, `Field.Shape`, `FrameDecoder.cutFrame(in:at:)`)
      `struct|class|enum|protocol|actor|typealias NAME` is declared in a Swift file under
      Sources/ or Plugins/ (each dotted part that starts with a capital); a member after a
      dot (`cutFrame`) is declared as a `func`, `var`, `let` or `case` there; or NAME is a
      target, product or trait of Package.swift
  a member alone (`withNextFrame`, `nextFrame()`, `run()`)
      declared as a `func`, `var`, `let` or `case` under Sources/
  `make TARGET`
      TARGET is a target of the Makefile

Anything else in backticks (code: `traits: []`, `throws(WireError)`, a command line) is not
checked. `scripts/check-architecture.py --list` prints what is checked and how.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "ARCHITECTURE.md"
PATH_SUFFIXES = (".swift", ".md", ".proto", ".py", ".sh", ".txt", ".json")
TYPE = re.compile(r"[A-Z][A-Za-z0-9_]*")
MEMBER = re.compile(r"[a-z_][A-Za-z0-9_]*")
# `Type.member(label:label:)`, `Type.Nested`, `member()`, `Type`.
NAME = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(?:\((?:[A-Za-z_]+:)*\))?")


def swift_sources():
    for folder in ("Sources", "Plugins", "Tests/TestSupport"):
        for path in (ROOT / folder).rglob("*.swift"):
            if ".build" not in path.parts:
                yield path.read_text(encoding="utf-8", errors="replace")


SOURCES = "\n".join(swift_sources())
DECLARED_TYPES = set(re.findall(r"\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)", SOURCES))
DECLARED_MEMBERS = set(re.findall(r"\b(?:func|var|let|case)\s+`?([A-Za-z_][A-Za-z0-9_]*)", SOURCES))
DECLARED_MEMBERS |= {name for cases in re.findall(r"\bcase\s+([A-Za-z_][A-Za-z0-9_, ]*)", SOURCES)
                     for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", cases)}
SWIFT_FILES = {path.stem for folder in ("Sources", "Plugins") for path in (ROOT / folder).rglob("*.swift")}
# The CLI's subcommands, as ArgumentParser names them (the type's name in lower case).
SUBCOMMANDS = {name.lower() for names in re.findall(r"subcommands: \[any ParsableCommand\.Type\] = \[([^\]]*)\]", SOURCES)
               for name in re.findall(r"([A-Za-z]+)\.self", names)}
MANIFEST = (ROOT / "Package.swift").read_text(encoding="utf-8")
PACKAGE_NAMES = set(re.findall(r'(?:name|trait):\s*"([^"]+)"', MANIFEST)) | set(re.findall(r'\.trait\(name: "([^"]+)"', MANIFEST))
DEFINES = set(re.findall(r'\.define\("([A-Za-z_]+)"\)', MANIFEST))
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
MAKE_TARGETS = set(re.findall(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)", MAKEFILE, re.MULTILINE))
FOLDER_ROOTS = [ROOT / name for name in ("Sources", "Tests", "Plugins", "Fixtures")]


def is_path(text):
    return "/" in text or text.endswith(PATH_SUFFIXES)


def check_path(text, context_folders):
    """None when the path exists, else why not."""
    relative = text.rstrip("/")
    candidates = [ROOT / relative] + [folder / relative for folder in context_folders]
    if "/" not in relative:
        for root in FOLDER_ROOTS:
            candidates += [child / relative for child in root.iterdir() if child.is_dir()]
            candidates.append(root / relative)
    if any(candidate.exists() for candidate in candidates):
        return None
    return "no such file or folder"


# Names from Swift, its standard library and the packages swiftframe uses, which this check
# cannot look up: a name of swiftframe's own must never go here.
EXTERNAL = {"Foundation", "Hashable", "Mirror", "ByteBuffer", "MessageOptions", "Network.framework", "withUnsafeBytes",
            "rethrows", "SwiftProtobuf", "SwiftNIO", "SwiftPM", "ByteToMessageHandler", "EventLoopFuture"}


def check_name(text):
    """None when every part of a dotted name is declared, else why not."""
    if text in EXTERNAL:
        return None
    parts = text.split("(")[0].split(".")
    if len(parts) == 1 and (parts[0] in PACKAGE_NAMES or parts[0] in SUBCOMMANDS or parts[0] in DEFINES):
        return None
    for index, part in enumerate(parts):
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", part):
            if part not in DECLARED_MEMBERS:
                return f"no case {part} is declared under Sources/, Plugins/ or Tests/TestSupport/"
        elif TYPE.fullmatch(part):
            if index == 0 and part in SWIFT_FILES and part not in DECLARED_TYPES:
                continue  # a file's name (Client/ClientMetrics.swift)
            if part not in DECLARED_TYPES and (index > 0 or part not in PACKAGE_NAMES):
                return f"no type {part} is declared under Sources/, Plugins/ or Tests/TestSupport/"
        elif part not in DECLARED_MEMBERS:
            return f"no func, var, let or case {part} is declared under Sources/, Plugins/ or Tests/TestSupport/"
    return None


def names(text):
    """(line number, name, folders that line names) for every name to check."""
    lines = text.split("\n")
    in_block = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            # A tree or a pipeline: its folders and its capitalised words.
            words = re.findall(r"[A-Za-z0-9_./-]+", line.split("──")[0])
            spans = [word.rstrip(".,") for word in words]
        else:
            spans = re.findall(r"`([^`]+)`", line)
        folders = [ROOT / span.rstrip("/") for span in spans if span.endswith("/") and (ROOT / span.rstrip("/")).is_dir()]
        for span in spans:
            yield number, span, folders, in_block


def classify(span, in_block):
    """'path', 'name', 'make' or None (not checked)."""
    if span.startswith("make "):
        return "make"
    if is_path(span) and " " not in span:
        return "path" if not in_block or "/" in span else None
    if NAME.fullmatch(span):
        if in_block:
            # In a block only names in CamelCase (two capitals or more, and a small letter):
            # the rest is prose.
            camel = re.fullmatch(r"[A-Z][A-Za-z0-9]*", span) and sum(c.isupper() for c in span) >= 2 \
                and any(c.islower() for c in span)
            return "name" if camel and span not in BLOCK_WORDS else None
        return "name"
    return None


# Capitalised words of the document's blocks that are English or protobuf, not Swift names.
BLOCK_WORDS: set = set()


def main():
    text = DOCUMENT.read_text(encoding="utf-8")
    failures, checked = [], []
    for number, span, folders, in_block in names(text):
        kind = classify(span, in_block)
        if kind is None:
            continue
        if kind == "make":
            target = span.split()[1]
            problem = None if target in MAKE_TARGETS else "no such target in the Makefile"
        elif kind == "path":
            problem = check_path(span, folders)
        else:
            problem = check_name(span)
        checked.append((number, kind, span))
        if problem:
            failures.append(f"ARCHITECTURE.md:{number}: `{span}`: {problem}")
    if "--list" in sys.argv[1:]:
        for number, kind, span in checked:
            print(f"{number}\t{kind}\t{span}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(f"ARCHITECTURE.md names {len(failures)} thing(s) that do not exist: fix the document or the name")
    print(f"architecture check passed: {len(checked)} names of ARCHITECTURE.md exist")


if __name__ == "__main__":
    main()
