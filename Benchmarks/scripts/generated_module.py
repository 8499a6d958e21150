"""What the generated-code scripts (codesize.py, codesize_protos.py, struct_floor.py) share: the
swiftc command that compiles generated Swift as one module of its own, the count of messages in
.proto files, and the machine's load."""
import re


def compile_command(sources, obj, flags, module_dirs):
    """swiftc compiling `sources` into the object `obj` as module Generated, with `flags` (-Onone,
    or -O -wmo) and the Modules folders of the runtimes' builds."""
    includes = [flag for folder in module_dirs for flag in ("-I", folder)]
    return ["swiftc", "-c", "-parse-as-library", "-swift-version", "6", "-module-name", "Generated",
            *includes, *flags, *sources, "-o", obj]


def message_count(paths):
    """Messages declared in the .proto files at `paths`, nested ones included."""
    count = 0
    for path in paths:
        with open(path) as file:
            count += len(re.findall(r"^\s*message\s+\w+", file.read(), re.MULTILINE))
    return count


def load():
    """The 1, 5 and 15 minute load averages now."""
    with open("/proc/loadavg") as file:
        return "load " + " ".join(file.read().split()[:3])
