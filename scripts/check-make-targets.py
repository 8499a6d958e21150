#!/usr/bin/env python3
"""The make targets the documents name exist, and CONTRIBUTING.md names every one.

- Every target of the Makefile is in the first column of CONTRIBUTING.md's table of make
  targets (the table under "## Make targets"), and every target that column names is in the
  Makefile; the Makefile's .PHONY list is its targets.
- Every `make ...` in backticks in README.md, CONTRIBUTING.md, ARCHITECTURE.md,
  Benchmarks/README.md, FuzzTesting/README.md and the DocC articles names targets that exist:
  of the Makefile, or of DIR/Makefile for `make -C DIR ...`. Variable assignments (`RUNS=7`)
  and options are skipped.

  scripts/check-make-targets.py     fails, naming each problem
"""
import pathlib
import re
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "Benchmarks/README.md",
                                      "FuzzTesting/README.md")] + sorted(ROOT.glob("Sources/*/*.docc/*.md"))


def targets(makefile):
    """The rule targets of a Makefile (not variables, not pattern or special targets)."""
    found = set()
    for line in makefile.read_text(encoding="utf-8").split("\n"):
        rule = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\- ]*?)\s*:(?![=:])", line)
        if rule and not line.startswith("\t"):
            names = rule.group(1).split()
            # `sanitize-thread: export VAR = value` is a target-specific variable, still a target.
            found.update(name for name in names if not name.startswith("."))
    return found


def phony(makefile):
    text = makefile.read_text(encoding="utf-8").replace("\\\n", " ")
    return {name for line in re.findall(r"^\.PHONY:(.*)$", text, re.MULTILINE) for name in line.split()}


def table_targets(text):
    """The targets named in the first column of the table under '## Make targets'."""
    section = text.split("## Make targets", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.split("\n"):
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for span in re.findall(r"`([^`]+)`", first):
            words = span.split()
            names.add(words[1] if words[0] == "make" and len(words) > 1 else words[0])
    return names


def make_commands(text):
    """The arguments of every `make` in a backticked span: (line, directory, targets)."""
    for number, line in enumerate(text.split("\n"), 1):
        for span in re.findall(r"`([^`]+)`", line):
            if not re.search(r"(?:^|\s)make(?:\s|$)", span):
                continue
            try:
                words = shlex.split(span)
            except ValueError:
                continue
            for index, word in enumerate(words):
                if word != "make":
                    continue
                directory, names, rest = ROOT, [], iter(words[index + 1:])
                for argument in rest:
                    if argument in ("&&", ";", "|", "#"):
                        break
                    if argument == "-C":
                        directory = ROOT / next(rest, ".")
                    elif argument.startswith("-") or "=" in argument:
                        continue
                    elif re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", argument):
                        names.append(argument)
                    else:
                        break
                yield number, directory, names


def main():
    problems = []
    makefile = ROOT / "Makefile"
    defined = targets(makefile)
    declared = phony(makefile)
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = table_targets(contributing)
    for name in sorted(defined - listed):
        problems.append(f"CONTRIBUTING.md: the table of make targets does not name `make {name}`")
    for name in sorted(listed - defined):
        problems.append(f"CONTRIBUTING.md: the table of make targets names `make {name}`, which the Makefile does not have")
    for name in sorted(defined - declared):
        problems.append(f"Makefile: {name} is not in .PHONY")
    for name in sorted(declared - defined):
        problems.append(f"Makefile: .PHONY names {name}, which is not a target")
    known = {}
    for document in DOCUMENTS:
        if not document.exists():
            continue
        for number, directory, names in make_commands(document.read_text(encoding="utf-8")):
            if directory not in known:
                known[directory] = targets(directory / "Makefile") if (directory / "Makefile").exists() else set()
            for name in names:
                if name not in known[directory]:
                    where = "the Makefile" if directory == ROOT else f"{directory.relative_to(ROOT)}/Makefile"
                    problems.append(f"{document.relative_to(ROOT)}:{number}: `make {name}`: no such target in {where}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(f"{len(problems)} problem(s) with make targets in the documents")
    print(f"make targets check passed: {len(defined)} targets, all in CONTRIBUTING.md's table")


if __name__ == "__main__":
    main()
