# A hostile client of tool-bash's proxy, run inside the sandbox: it speaks to the proxy in
# HTTP_PROXY with the call's own credentials and sends each probe of a JSON file byte for byte
# (HTTP heads, SOCKS5 and SOCKS4 requests), printing one JSON line per probe with what came back.
import base64
import json
import os
import socket
import sys
from urllib.parse import urlsplit

proxy = urlsplit(os.environ["HTTP_PROXY"])
token = proxy.password


def talk(payload, then=b""):
    s = socket.create_connection(("127.0.0.1", proxy.port), timeout=20)
    s.sendall(payload)
    if then:
        s.sendall(then)
    # Read to the end: a refusal ends the connection, an allowed probe sends a request with Connection: close.
    got = b""
    try:
        while len(got) < 65536:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        got += b"\r\n\r\n(timed out)"
    s.close()
    return got


def http(probe):
    # The request line and headers as given; the credentials go right after the request line.
    try:
        head = probe["head"].encode("latin1")
    except UnicodeEncodeError:  # a name beyond latin1 goes as UTF-8, as a client without IDN support sends it
        head = probe["head"].encode("utf-8")
    line, _, rest = head.partition(b"\r\n")
    auth = b"Proxy-Authorization: Basic " + base64.b64encode(("toolhost:" + token).encode()) + b"\r\n"
    then = probe.get("then", "").encode("latin1")
    got = talk(line + b"\r\n" + auth + rest, then)
    text = got.decode("latin1")
    status = text.split("\r\n", 1)[0]
    body = text.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in text else ""
    return {"status": status, "body": body[:2000]}


def socks5(probe):
    s = socket.create_connection(("127.0.0.1", proxy.port), timeout=20)
    s.sendall(b"\x05\x01\x02")
    assert s.recv(2) == b"\x05\x02"
    user, password = b"toolhost", token.encode()
    s.sendall(bytes([1, len(user)]) + user + bytes([len(password)]) + password)
    assert s.recv(2) == b"\x01\x00"
    host = bytes.fromhex(probe["hostHex"])
    atyp = probe["atyp"]
    address = bytes([len(host)]) + host if atyp == 3 else host
    s.sendall(bytes([5, 1, 0, atyp]) + address + probe["port"].to_bytes(2, "big"))
    reply = s.recv(10)
    result = {"reply": reply[1] if len(reply) > 1 else None}
    if result["reply"] == 0 and probe.get("then"):
        s.sendall(probe["then"].encode("latin1"))
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        result["body"] = got.decode("latin1")[-200:]
    s.close()
    return result


def socks4(probe):
    s = socket.create_connection(("127.0.0.1", proxy.port), timeout=20)
    # SOCKS4a: the address 0.0.0.1 and a name after the user id.
    s.sendall(b"\x04\x01" + probe["port"].to_bytes(2, "big") + b"\x00\x00\x00\x01" + token.encode() + b"\x00" + probe["host"].encode() + b"\x00")
    reply = s.recv(8)
    s.close()
    return {"reply": reply[1] if len(reply) > 1 else None}


probes = json.load(open(sys.argv[1]))
for probe in probes:
    kind = probe["kind"]
    try:
        result = http(probe) if kind == "http" else socks5(probe) if kind == "socks5" else socks4(probe)
    except Exception as error:  # a probe that fails says so, the others still run
        result = {"error": repr(error)}
    print(json.dumps({"name": probe["name"], **result}), flush=True)
