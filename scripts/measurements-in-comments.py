#!/usr/bin/env python3
"""Comment lines that quote a measurement: instruction counts, times, speed or size ratios,
percentages of a run, compiler instructions, measured sizes, benchmark results.

Measurements go stale as the code changes, and belong in Benchmarks/README.md (where each
names its sitting); a comment keeps the reason and drops the number.

  scripts/measurements-in-comments.py [FOLDER...]   prints FILE:LINE: TEXT for each line of a
                                                    comment sentence that quotes one (default:
                                                    Sources Plugins), then the count; exits 1
                                                    when there are any

Consecutive comment lines are read as one text, cut into sentences, so that a measurement
whose number and unit fall on two lines is found, and every line of its sentence is counted.
Generated code (a `// DO NOT EDIT` header) is skipped.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
NUMBER = r"[0-9][0-9,.]*"
MEASUREMENT = re.compile("|".join([
    rf"{NUMBER}\s*(?:[kKMG]\s+)?(?:compiler\s+)?instructions",        # 330 instructions, 11 M instructions
    rf"\b{NUMBER}\s*(?:ns|µs|us)\b",                                   # 63 ns
    rf"\b{NUMBER}\s*ms\b(?!\s+by default)",                            # 250 ms (not a default)
    rf"\b{NUMBER}\s*s\s+(?:instead|against|with)\b",                 # took 23 s instead of
    rf"\b{NUMBER}\s*(?:seconds|minutes)\s+(?:instead|against)\b",
    rf"{NUMBER}\s*×",                                                  # 1.6×
    r"\b(?:[1-9][0-9]*|0\.[0-9]+)(?:\.[0-9]+)?x\b",                    # 1.4x (not 0x81, not `0x`)
    rf"\b{NUMBER}\s*%\s+(?:of|longer|shorter|faster|slower|more|less|fewer|dearer|cheaper)\b",
    rf"\b{NUMBER}\s*%\s+(?:of\s+)?(?:a|the)\s+run\b",
    rf"\b{NUMBER}\s*G\b",                                              # 21.3 G
    rf"\b{NUMBER}\s*M\b",                                              # 47 M
    rf"\b{NUMBER}\s*(?:KB|KiB|MB)\s+(?:per|of\s+(?:machine\s+)?code|capture)",
    r"bytes\s+of\s+machine\s+code|machine\s+code\s+(?:per|of)\b.*[0-9]",
    r"\b(?:took|takes|cost|costs|was|were)\s+(?:about\s+)?(?:twice|half|a third|a quarter|an eighth|a fifth|a tenth)\b",
    r"\b(?:a third|a quarter|an eighth|a fifth|a tenth|half) of (?:compiling|encoding|decoding|a run|the time)",
    rf"(?:took|cost|costs|saved|saves)\s+(?:\w+\s+){{0,4}}{NUMBER}\s*(?:ns|µs|ms|s|%|instructions|bytes|M|G)\b",
    rf"benchmark[^.]*\b{NUMBER}\s*%",                                 # the encode benchmark 6 %
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|a hundred) instructions",
    r"\b(?:two|three|four|five|six|ten|twenty|a hundred) times (?:the|as)\b",
]))
# Not measurements: configuration defaults and documented limits.
EXCEPTIONS = re.compile(r"Default:|[Bb]y default|[Tt]he default|default \d|\(default")
COMMENT = re.compile(r"^\s*(///?|\*)\s?(.*)$")


def comment_blocks(path):
    """Runs of consecutive comment lines: [(line number, text)]."""
    block = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").split("\n"), 1):
        match = COMMENT.match(line) if not line.strip().startswith("/*") or line.strip().startswith("/**") else None
        if match and not line.strip().startswith("// swift-"):
            block.append((number, match.group(2)))
        elif block:
            yield block
            block = []
    if block:
        yield block


def findings(path):
    lines = set()
    for block in comment_blocks(path):
        text, starts = "", []
        for number, part in block:
            starts.append((len(text), number))
            text += part + " "
        # A sentence ends at `.`, `;` or `:` (after a closing parenthesis, if any) before a space.
        ends = [match.end() for match in re.finditer(r"[.;:]\)?(?=\s)", text)]
        for begin, end in zip([0] + ends, ends + [len(text)]):
            body = text[begin:end]
            if not body.strip() or not MEASUREMENT.search(body):
                continue
            if EXCEPTIONS.search(body) and not re.search(r"instructions|[0-9]\s*(?:ns|µs)\b|×", body):
                continue
            for index, (offset, number) in enumerate(starts):
                following = starts[index + 1][0] if index + 1 < len(starts) else len(text)
                if offset < end and following > begin and text[max(offset, begin):min(following, end)].strip():
                    lines.add(number)
    return sorted(lines)


def main():
    folders = sys.argv[1:] or ["Sources", "Plugins"]
    total = 0
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            if ".build" in path.parts or "DO NOT EDIT" in path.read_text(encoding="utf-8", errors="replace")[:2000]:
                continue
            source = path.read_text(encoding="utf-8", errors="replace").split("\n")
            for number in findings(path):
                print(f"{path.relative_to(ROOT)}:{number}: {source[number - 1].strip()}")
                total += 1
    print(f"{total} comment lines quote a measurement")
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
