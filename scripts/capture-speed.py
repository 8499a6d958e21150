#!/usr/bin/env python3
"""Writes a pcap of small game-tcp frames over several loopback connections, for
`make bench-inspect`: SIZE megabytes of Ethernet/IPv4/TCP packets (handshake first), 1 to 4
frames per segment, both directions, in time order, the server on port 7000.

    capture-speed.py FILE [SIZE_MB] [--messages]

Without --messages the bodies are 8 to 40 random bytes under commands 1 to 5. With it they are
the game fixture's messages (Fixtures/protos/game.proto), encoded here: Test_Req under CMD_TEST
(1) to the server; Test_Rsp under CMD_TEST and Notice_Ntf under CMD_NOTICE (200) from it.
"""
import random
import struct
import sys


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def packet(src, dst, sport, dport, seq, ack, flags, payload):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return b"\0" * 12 + b"\x08\x00" + ip + tcp  # Ethernet


def varint(value):
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def string_field(number, text):
    data = text.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def int_field(number, value):
    return varint(number << 3) + varint(value)


def game_frame(command, body):
    return struct.pack("!III", 0xFF, 4 + len(body), command) + body


def message_frames(rng):
    """Frames to the server, frames from it: 32 of each kind, drawn from at random."""
    words = ["hello", "player", "room-42", "level up", "gold", "quest accepted", "x" * 30, "ok"]
    requests = [game_frame(1, string_field(1, rng.choice(words)) + int_field(2, rng.randrange(-1000, 100000)))
                for _ in range(32)]
    replies = [game_frame(1, string_field(1, rng.choice(words)) + int_field(2, rng.randrange(1 << 40)))
               for _ in range(32)]
    notices = [game_frame(200, string_field(1, rng.choice(words) + " " + rng.choice(words)) + int_field(2, n))
               for n in range(32)]
    return requests, replies + notices


def main():
    arguments = [a for a in sys.argv[1:] if a != "--messages"]
    messages = "--messages" in sys.argv[1:]
    path = arguments[0]
    size = int(arguments[1]) if len(arguments) > 1 else 100
    rng = random.Random(1)
    if messages:
        to_server, from_server = message_frames(rng)
    else:
        to_server = from_server = [struct.pack("!III", 0xFF, 4 + n, 1 + n % 5) + bytes(rng.randrange(256) for _ in range(n))
                                   for n in range(8, 41)]
    out = open(path, "wb")
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
    addr = bytes([127, 0, 0, 1])
    connections = []
    for index in range(8):
        connections.append({"cport": 40000 + index, "seq": [1, 1]})
    written = 24
    time = 1_700_000_000.0

    def record(data):
        nonlocal written, time
        time += 0.000_01
        seconds = int(time)
        out.write(struct.pack("<IIII", seconds, int((time - seconds) * 1e6), len(data), len(data)) + data)
        written += 16 + len(data)

    for c in connections:
        record(packet(addr, addr, c["cport"], 7000, 0, 0, 0x02, b""))
        record(packet(addr, addr, 7000, c["cport"], 0, 1, 0x12, b""))
        record(packet(addr, addr, c["cport"], 7000, 1, 1, 0x10, b""))
    count = 0
    while written < size * 1_000_000:
        c = connections[count % len(connections)]
        direction = (count // len(connections)) % 2
        frames = to_server if direction == 0 else from_server
        payload = b"".join(rng.choice(frames) for _ in range(rng.randrange(1, 5)))
        ports = (c["cport"], 7000) if direction == 0 else (7000, c["cport"])
        record(packet(addr, addr, ports[0], ports[1], c["seq"][direction], c["seq"][1 - direction], 0x18, payload))
        c["seq"][direction] = (c["seq"][direction] + len(payload)) & 0xFFFFFFFF
        count += 1
    out.close()


if __name__ == "__main__":
    main()
