# A gRPC server (Python grpcio, C-core) that enforces its ping policy, with one method that stays
# silent: /palisade.test.Silent/Wait answers b"done" after argv[2] seconds. argv[1] is its
# grpc.http2.min_ping_interval_without_data_ms (C-core's default: 300000), scaled down by the
# test so a violation shows in seconds. Prints its port, then serves until killed.
import sys
import time
from concurrent import futures

import grpc

min_ping_ms = int(sys.argv[1])
silent_s = float(sys.argv[2])


def wait(request, context):
    time.sleep(silent_s)
    return b"done"


handler = grpc.method_handlers_generic_handler("palisade.test.Silent", {"Wait": grpc.unary_unary_rpc_method_handler(wait)})
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=[("grpc.http2.min_ping_interval_without_data_ms", min_ping_ms)])
server.add_generic_rpc_handlers((handler,))
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
server.wait_for_termination()
