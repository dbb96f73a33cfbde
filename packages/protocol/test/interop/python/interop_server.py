"""The gRPC interop test server (TestService), in Python grpcio with generic handlers.

Usage: interop_server.py DESCRIPTORS.bin   (listens on 127.0.0.1, port chosen by the OS, and
prints "port N" on stdout). Behaviour follows the interop spec: UnaryCall and FullDuplexCall
echo x-grpc-test-echo-initial as a response header and x-grpc-test-echo-trailing-bin as a
trailer, and return `response_status` when the request sets one; UnimplementedCall is not
implemented, and UnimplementedService not served.
"""
import sys
import time
from concurrent import futures

import grpc

from descriptors import Messages

ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"

pb = Messages(sys.argv[1])
T = "grpc.testing."


def echo_metadata(context):
    md = dict(context.invocation_metadata())
    if ECHO_INITIAL in md:
        context.send_initial_metadata(((ECHO_INITIAL, md[ECHO_INITIAL]),))
    if ECHO_TRAILING in md:
        context.set_trailing_metadata(((ECHO_TRAILING, md[ECHO_TRAILING]),))


def maybe_abort(request, context):
    if request.HasField("response_status") and request.response_status.code != 0:
        context.abort(status_code(request.response_status.code), request.response_status.message)


def status_code(number):
    for code in grpc.StatusCode:
        if code.value[0] == number:
            return code
    raise ValueError("no status code %d" % number)


def payload(size):
    return pb[T + "Payload"](body=b"\0" * size)


def empty_call(request, context):
    return pb[T + "Empty"]()


def unary_call(request, context):
    echo_metadata(context)
    maybe_abort(request, context)
    return pb[T + "SimpleResponse"](payload=payload(request.response_size))


def streaming_output_call(request, context):
    for param in request.response_parameters:
        if param.interval_us:
            time.sleep(param.interval_us / 1e6)
        yield pb[T + "StreamingOutputCallResponse"](payload=payload(param.size))
    maybe_abort(request, context)


def streaming_input_call(request_iterator, context):
    total = sum(len(r.payload.body) for r in request_iterator)
    return pb[T + "StreamingInputCallResponse"](aggregated_payload_size=total)


def full_duplex_call(request_iterator, context):
    echo_metadata(context)
    for request in request_iterator:
        maybe_abort(request, context)
        for param in request.response_parameters:
            if param.interval_us:
                time.sleep(param.interval_us / 1e6)
            yield pb[T + "StreamingOutputCallResponse"](payload=payload(param.size))


def half_duplex_call(request_iterator, context):
    requests = list(request_iterator)
    for request in requests:
        for param in request.response_parameters:
            yield pb[T + "StreamingOutputCallResponse"](payload=payload(param.size))


def main():
    def h(kind, fn, req, res):
        return kind(fn, request_deserializer=pb[T + req].FromString, response_serializer=pb[T + res].SerializeToString)

    handlers = {
        "EmptyCall": h(grpc.unary_unary_rpc_method_handler, empty_call, "Empty", "Empty"),
        "UnaryCall": h(grpc.unary_unary_rpc_method_handler, unary_call, "SimpleRequest", "SimpleResponse"),
        "CacheableUnaryCall": h(grpc.unary_unary_rpc_method_handler, unary_call, "SimpleRequest", "SimpleResponse"),
        "StreamingOutputCall": h(grpc.unary_stream_rpc_method_handler, streaming_output_call, "StreamingOutputCallRequest", "StreamingOutputCallResponse"),
        "StreamingInputCall": h(grpc.stream_unary_rpc_method_handler, streaming_input_call, "StreamingInputCallRequest", "StreamingInputCallResponse"),
        "FullDuplexCall": h(grpc.stream_stream_rpc_method_handler, full_duplex_call, "StreamingOutputCallRequest", "StreamingOutputCallResponse"),
        "HalfDuplexCall": h(grpc.stream_stream_rpc_method_handler, half_duplex_call, "StreamingOutputCallRequest", "StreamingOutputCallResponse"),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("grpc.testing.TestService", handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("port %d" % port, flush=True)
    # Ends when the test closes stdin (or kills the process).
    sys.stdin.read()
    server.stop(0)


if __name__ == "__main__":
    main()
