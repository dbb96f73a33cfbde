"""The gRPC interop test client cases, in Python grpcio with generic stubs.

Usage: interop_client.py DESCRIPTORS.bin PORT CASE[,CASE...]
Runs each case against 127.0.0.1:PORT and prints one JSON line per case: {"case", "ok",
"error"}. The cases and their numbers are those of the interop spec (grpc/grpc,
doc/interop-test-descriptions.md).
"""
import json
import queue
import sys
import traceback

import grpc

from descriptors import Messages

pb = Messages(sys.argv[1])
T = "grpc.testing."
SERVICE = "/grpc.testing.TestService/"
ECHO_INITIAL = ("x-grpc-test-echo-initial", "test_initial_metadata_value")
ECHO_TRAILING = ("x-grpc-test-echo-trailing-bin", b"\xab\xab\xab")
SPECIAL_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"


class Stubs:
    def __init__(self, channel):
        def stub(kind, name, req, res, service=SERVICE):
            return getattr(channel, kind)(service + name, request_serializer=pb[T + req].SerializeToString, response_deserializer=pb[T + res].FromString)

        self.empty = stub("unary_unary", "EmptyCall", "Empty", "Empty")
        self.unary = stub("unary_unary", "UnaryCall", "SimpleRequest", "SimpleResponse")
        self.output = stub("unary_stream", "StreamingOutputCall", "StreamingOutputCallRequest", "StreamingOutputCallResponse")
        self.input = stub("stream_unary", "StreamingInputCall", "StreamingInputCallRequest", "StreamingInputCallResponse")
        self.duplex = stub("stream_stream", "FullDuplexCall", "StreamingOutputCallRequest", "StreamingOutputCallResponse")
        self.unimplemented_method = stub("unary_unary", "UnimplementedCall", "Empty", "Empty")
        self.unimplemented_service = stub("unary_unary", "UnimplementedCall", "Empty", "Empty", service="/grpc.testing.UnimplementedService/")


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def zeros(n):
    return pb[T + "Payload"](body=b"\0" * n)


def output_request(*sizes, payload_size=0, status=None):
    req = pb[T + "StreamingOutputCallRequest"](response_parameters=[pb[T + "ResponseParameters"](size=s) for s in sizes])
    if payload_size:
        req.payload.CopyFrom(zeros(payload_size))
    if status:
        req.response_status.CopyFrom(pb[T + "EchoStatus"](code=status[0], message=status[1]))
    return req


class Pipe:
    """A request iterator the case feeds one message at a time (ping-pong)."""

    DONE = object()

    def __init__(self):
        self.q = queue.Queue()

    def send(self, msg):
        self.q.put(msg)

    def close(self):
        self.q.put(Pipe.DONE)

    def __iter__(self):
        while True:
            item = self.q.get()
            if item is Pipe.DONE:
                return
            yield item


def expect_code(fn, code, message=None):
    try:
        fn()
    except grpc.RpcError as err:
        check(err.code() == code, "status %s, expected %s (%s)" % (err.code(), code, err.details()))
        if message is not None:
            check(err.details() == message, "message %r, expected %r" % (err.details(), message))
        return
    raise AssertionError("the call succeeded; expected %s" % code)


def empty_unary(s):
    check(s.empty(pb[T + "Empty"]()) == pb[T + "Empty"](), "EmptyCall answered something else than Empty")


def large_unary(s):
    res = s.unary(pb[T + "SimpleRequest"](response_size=314159, payload=zeros(271828)))
    check(res.payload.body == b"\0" * 314159, "payload of %d bytes, expected 314159 zeros" % len(res.payload.body))


def client_streaming(s):
    sizes = [27182, 8, 1828, 45904]
    res = s.input(iter([pb[T + "StreamingInputCallRequest"](payload=zeros(n)) for n in sizes]))
    check(res.aggregated_payload_size == 74922, "aggregated %d, expected 74922" % res.aggregated_payload_size)


def server_streaming(s):
    sizes = [31415, 9, 2653, 58979]
    got = [len(r.payload.body) for r in s.output(output_request(*sizes))]
    check(got == sizes, "sizes %s, expected %s" % (got, sizes))


def ping_pong(s):
    pipe = Pipe()
    call = s.duplex(iter(pipe))
    for size, payload_size in [(31415, 27182), (9, 8), (2653, 1828), (58979, 45904)]:
        pipe.send(output_request(size, payload_size=payload_size))
        res = next(call)
        check(len(res.payload.body) == size, "response of %d bytes, expected %d" % (len(res.payload.body), size))
    pipe.close()
    check(next(call, None) is None, "a response after the last request")
    check(call.code() == grpc.StatusCode.OK, "status %s" % call.code())


def empty_stream(s):
    check(list(s.duplex(iter([]))) == [], "responses to an empty stream")


def custom_metadata(s):
    md = (ECHO_INITIAL, ECHO_TRAILING)
    _, call = s.unary.with_call(pb[T + "SimpleRequest"](response_size=314159, payload=zeros(271828)), metadata=md)
    check_echo("UnaryCall", call.initial_metadata(), call.trailing_metadata())
    stream = s.duplex(iter([output_request(314159, payload_size=271828)]), metadata=md)
    sizes = [len(r.payload.body) for r in stream]
    check(sizes == [314159], "FullDuplexCall sizes %s" % sizes)
    check_echo("FullDuplexCall", stream.initial_metadata(), stream.trailing_metadata())


def check_echo(where, initial, trailing):
    check(ECHO_INITIAL in tuple(initial or ()), "%s: initial metadata %s lacks %s" % (where, initial, ECHO_INITIAL))
    check(ECHO_TRAILING in tuple(trailing or ()), "%s: trailing metadata %s lacks %s" % (where, trailing, ECHO_TRAILING))


def status_code_and_message(s):
    message = "test status message"
    req = pb[T + "SimpleRequest"]()
    req.response_status.CopyFrom(pb[T + "EchoStatus"](code=2, message=message))
    expect_code(lambda: s.unary(req), grpc.StatusCode.UNKNOWN, message)
    expect_code(lambda: list(s.duplex(iter([output_request(status=(2, message))]))), grpc.StatusCode.UNKNOWN, message)


def special_status_message(s):
    req = pb[T + "SimpleRequest"]()
    req.response_status.CopyFrom(pb[T + "EchoStatus"](code=2, message=SPECIAL_MESSAGE))
    expect_code(lambda: s.unary(req), grpc.StatusCode.UNKNOWN, SPECIAL_MESSAGE)


def unimplemented_method(s):
    expect_code(lambda: s.unimplemented_method(pb[T + "Empty"]()), grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(s):
    expect_code(lambda: s.unimplemented_service(pb[T + "Empty"]()), grpc.StatusCode.UNIMPLEMENTED)


def timeout_on_sleeping_server(s):
    pipe = Pipe()
    call = s.duplex(iter(pipe), timeout=0.001)
    pipe.send(output_request(payload_size=27182))
    expect_code(lambda: list(call), grpc.StatusCode.DEADLINE_EXCEEDED)
    pipe.close()


def cancel_after_begin(s):
    pipe = Pipe()
    future = s.input.future(iter(pipe))
    future.cancel()
    check(future.cancelled(), "the call was not cancelled")
    check(future.code() == grpc.StatusCode.CANCELLED, "status %s after cancel" % future.code())
    pipe.close()


def cancel_after_first_response(s):
    pipe = Pipe()
    call = s.duplex(iter(pipe))
    pipe.send(output_request(31415, payload_size=27182))
    res = next(call)
    check(len(res.payload.body) == 31415, "first response of %d bytes" % len(res.payload.body))
    call.cancel()
    check(call.code() == grpc.StatusCode.CANCELLED, "status %s after cancel" % call.code())
    pipe.close()


def deadline_reaches_handler(s):
    """Not an interop spec case: a deadline long enough for the call to reach the server's
    handler, which then sleeps; the client gets DEADLINE_EXCEEDED (the test checks what the
    server's handler was told)."""
    req = output_request(1)
    req.response_parameters[0].interval_us = 10000000
    # Long enough for the call to reach the handler on a loaded machine.
    expect_code(lambda: list(s.output(req, timeout=1.0)), grpc.StatusCode.DEADLINE_EXCEEDED)


def main():
    port, cases = int(sys.argv[2]), sys.argv[3].split(",")
    with grpc.insecure_channel("127.0.0.1:%d" % port) as channel:
        stubs = Stubs(channel)
        for name in cases:
            try:
                globals()[name](stubs)
                result = {"case": name, "ok": True}
            except Exception as err:  # every failure is reported, the other cases still run
                result = {"case": name, "ok": False, "error": "%s: %s" % (type(err).__name__, err), "trace": traceback.format_exc()}
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
