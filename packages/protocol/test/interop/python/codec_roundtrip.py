"""Reads messages as Python's protobuf (C++) does and writes them back as it encodes them.

Usage: codec_roundtrip.py DESCRIPTORS.bin < requests
Each stdin line is JSON {"type": "<full message name>", "hex": "<bytes>"}; each stdout line is
{"ok": true, "hex": "<SerializeToString() of the parsed message>"} or {"ok": false, "error": ...}
when the bytes do not parse. Unknown fields are kept and written back, as the C++ runtime does.
"""
import json
import sys

from descriptors import Messages

pb = Messages(sys.argv[1])

for line in sys.stdin:
    req = json.loads(line)
    try:
        msg = pb[req["type"]].FromString(bytes.fromhex(req["hex"]))
        out = {"ok": True, "hex": msg.SerializeToString().hex()}
    except Exception as err:  # a parse error is an answer, not a failure of the script
        out = {"ok": False, "error": "%s: %s" % (type(err).__name__, err)}
    sys.stdout.write(json.dumps(out) + "\n")
sys.stdout.flush()
