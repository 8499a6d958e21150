#!/usr/bin/env python3
"""Every Swift code block of the README and the DocC articles, compiled (and the ones that
talk to a server, run) by the tests.

Each ```swift block must follow a marker line, or the check fails:

  <!-- example: NAME -->                      compiled as a function of the examples file
  <!-- example: NAME, peer: ROLE ARGS -->     compiled, and run by ExampleTests against
                                              `Tests/Peers/peer.py ROLE ARGS` on a free port
  <!-- example: NAME, peer: ..., prints: T -->  and what it prints must contain T (its `print`
                                              calls are recorded; `;` separates several)
  <!-- example: NAME, trait: TRAIT -->        compiled only when the package trait is on
  <!-- example: NAME, given: a: T; b: U -->   compiled with the values the block uses but
                                              does not make (`bytesFromTheSocket: [UInt8]`)
  <!-- example: NAME, manifest -->            a Package.swift: scripts/check-plugins.sh has
                                              SwiftPM load it (`--manifest NAME` prints it)

Options combine (`peer: game --tls, trait: TLS`). A module only some platforms have is
imported in three lines (`#if canImport(Network)`, `import Network`, `#endif`), which go to
the top as they are, and the code using it is fenced the same way, so that the examples file
builds on Linux too. A ```json block must parse. In the examples file
(Tests/SwiftFrameNIOTests/Examples/Examples.swift) each block becomes a function
`example_NAME(port:)` holding the block as printed, with its `import` lines gathered at the
top and the addresses pointed at the test's peer: `port: 9000` (9001, 9002, 9443) and
`127.0.0.1:8080` name the peer's port, `host: "..."` becomes 127.0.0.1, and `.file("NAME")`
names NAME in the test's certificate folder (`exampleFile`).

  scripts/examples.py                  rewrites the Swift file
  scripts/examples.py --check          fails if it differs from what the documents say
  scripts/examples.py --manifest NAME  prints the manifest example NAME
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "Tests/SwiftFrameNIOTests/Examples/Examples.swift"
DOCUMENTS = [ROOT / "README.md"] + sorted(ROOT.glob("Sources/*/*.docc/*.md"))
MARKER = re.compile(r"<!-- example: ([a-z0-9-]+)((?:, [a-z]+(?:: [^,]*)?)*) -->")
OPTIONS = {"peer", "prints", "trait", "given", "manifest"}
IMPORTS = ["Foundation", "SwiftFrame", "SwiftFrameFixtures", "SwiftFrameNIO"]


class Example:
    def __init__(self, name, options, document, line, code):
        self.name, self.document, self.line, self.code = name, document, line, code
        self.peer = options.get("peer")
        self.prints = [part.strip() for part in options.get("prints", "").split(";") if part.strip()]
        self.trait = options.get("trait")
        self.given = [part.strip() for part in options.get("given", "").split(";") if part.strip()]
        self.manifest = "manifest" in options
        where = f"{document}:{line}"
        if self.peer and self.given:
            sys.exit(f"{where}: an example with `given` values cannot run against a peer")
        if self.prints and not self.peer:
            sys.exit(f"{where}: only an example run against a peer can be checked for what it prints")
        if self.peer and not self.prints:
            sys.exit(f"{where}: say what an example run against a peer prints (`prints: TEXT`)")
        if self.manifest and len(options) > 1:
            sys.exit(f"{where}: a manifest example takes no other option")


def parse_options(text, where):
    options = {}
    for part in filter(None, text.split(", ")):
        key, _, value = part.partition(": ")
        if key not in OPTIONS:
            sys.exit(f"{where}: unknown example option '{key}' (known: {', '.join(sorted(OPTIONS))})")
        options[key] = value.strip()
    return options


def examples():
    """Every marked block, in order. Fails on a ```swift block without a marker."""
    found = []
    for document in DOCUMENTS:
        relative = document.relative_to(ROOT)
        lines = document.read_text(encoding="utf-8").split("\n")
        index = 0
        while index < len(lines):
            stripped = lines[index].strip()
            if stripped.startswith("```") and stripped != "```swift":
                # Another language's block: skip to its end, so its lines are not read as markers.
                end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == "```"), len(lines))
                if stripped == "```json":
                    try:
                        json.loads("\n".join(lines[index + 1:end]))
                    except ValueError as error:
                        sys.exit(f"{relative}:{index + 1}: the JSON block does not parse: {error}")
                index = end + 1
                continue
            if stripped == "```swift":
                marker = MARKER.fullmatch(lines[index - 1].strip()) if index > 0 else None
                if not marker:
                    sys.exit(f"{relative}:{index + 1}: a ```swift block needs an `<!-- example: NAME -->` line "
                             "before it (see scripts/examples.py)")
                end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == "```"), None)
                if end is None:
                    sys.exit(f"{relative}:{index + 1}: the example block does not end")
                options = parse_options(marker.group(2), f"{relative}:{index}")
                found.append(Example(marker.group(1), options, relative, index, lines[index + 1:end]))
                index = end + 1
                continue
            if MARKER.fullmatch(stripped) and (index + 1 >= len(lines) or lines[index + 1].strip() != "```swift"):
                sys.exit(f"{relative}:{index + 1}: an example marker must be followed by ```swift")
            index += 1
    names = [example.name for example in found]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        sys.exit(f"example names used twice: {', '.join(sorted(duplicates))}")
    return found


def pointed_at_peer(line):
    line = re.sub(r"port: 9(000|001|002|443)\b", "port: port", line)
    line = re.sub(r'host: "[^"]*"', 'host: "127.0.0.1"', line)
    line = line.replace("127.0.0.1:8080", "127.0.0.1:\\(port)")
    return re.sub(r'\.file\("([^"]*)"\)', r'.file(exampleFile("\1"))', line)


# The examples' `print`, which ExampleTests reads back (fileprivate: it shadows Swift.print in
# this file only).
PRINT = """/// What an example prints goes to the test's output, and to the `ExampleOutput` of the test
/// running it.
fileprivate func print(_ items: Any..., separator: String = " ", terminator: String = "\\n") {
    let text = items.map { "\\($0)" }.joined(separator: separator)
    Swift.print(text, terminator: terminator)
    ExampleOutput.current?.record(text + terminator)
}
"""


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def swift_file():
    imports = set(IMPORTS)
    fenced_imports = set()
    functions = []
    runnable = []
    for example in examples():
        if example.manifest:
            continue
        body = []
        code = list(example.code)
        for index in range(len(code) - 2):
            fence = code[index] is not None and re.fullmatch(r"#if canImport\((\w+)\)", code[index])
            if fence and code[index + 1] == f"import {fence.group(1)}" and code[index + 2] == "#endif":
                fenced_imports.add(fence.group(1))
                code[index:index + 3] = [None] * 3
        for line in code:
            if line is None:
                continue
            if line.startswith("import "):
                imports.add(line.split()[1])
                continue
            body.append(pointed_at_peer(line))
        identifier = "example_" + example.name.replace("-", "_")
        parameters = ", ".join(["port: Int"] + example.given)
        function = (
            f"/// {example.document}, example `{example.name}`.\n"
            f"@Sendable func {identifier}({parameters}) async throws {{\n"
            + "\n".join(("    " + line).rstrip() for line in body)
            + "\n}\n")
        functions.append(f"#if {example.trait}\n{function}#endif\n" if example.trait else function)
        if example.peer:
            words = ", ".join(f'"{word}"' for word in example.peer.split())
            prints = ", ".join(swift_string(text) for text in example.prints)
            entry = f'    examples.append(("{example.name}", [{words}], [{prints}], {identifier}))\n'
            runnable.append(f"    #if {example.trait}\n{entry}    #endif\n" if example.trait else entry)
    header = ("// Generated by scripts/examples.py from the examples of README.md and the DocC articles:\n"
              "// edit those, then run `make generate`. Compiled with the tests; ExampleTests runs those\n"
              "// with a peer.\n"
              "// swiftlint:disable all\n\n")
    kind = "(name: String, peer: [String], prints: [String], run: @Sendable (Int) async throws -> Void)"
    return (header + "".join(f"import {module}\n" for module in sorted(imports))
            + "".join(f"#if canImport({module})\nimport {module}\n#endif\n" for module in sorted(fenced_imports)) + "\n"
            + PRINT + "\n"
            + "\n".join(functions) + "\n"
            + "/// The examples that talk to a server: name, the Python peer's role and arguments, what it\n"
            + "/// must print, the example.\n"
            + f"let runnableExamples: [{kind}] = {{\n"
            + f"    var examples: [{kind}] = []\n"
            + "".join(runnable)
            + "    return examples\n}()\n")


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["--manifest"] and len(arguments) == 2:
        manifest = [example for example in examples() if example.manifest and example.name == arguments[1]]
        if not manifest:
            sys.exit(f"no manifest example named {arguments[1]}")
        print("\n".join(manifest[0].code))
        return
    if arguments[:1] == ["--manifests"]:
        print("\n".join(example.name for example in examples() if example.manifest))
        return
    text = swift_file()
    if "--check" in arguments:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text:
            sys.exit(f"{OUTPUT.relative_to(ROOT)} is not what the documents' examples give: run `make generate`")
        print(f"examples check passed: {text.count('@Sendable func example_')} examples")
        return
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
