"""Message classes built at run time from a FileDescriptorSet the test writes.

Debian's python3-grpcio and python3-protobuf have no grpc_tools (no protoc, no generated
modules), so the interop scripts get their message types from the descriptors embedded in the
TypeScript code that protoc-gen-es generated: the same .proto files on both sides.
"""
import sys
import warnings

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

# Python's protobuf (C++) stops at a stray end-group tag with only a warning; C++'s
# ParseFromString and upb refuse such bytes. Treat it as the parse error it is.
warnings.simplefilter("error", RuntimeWarning)


class Messages:
    """`messages["grpc.testing.SimpleRequest"]` is the class of that message type."""

    def __init__(self, descriptor_set_path):
        with open(descriptor_set_path, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        self.pool = descriptor_pool.DescriptorPool()
        for file_proto in fds.file:
            self.pool.Add(file_proto)
        self._factory = message_factory.MessageFactory(self.pool)
        self._classes = {}

    def __getitem__(self, full_name):
        cls = self._classes.get(full_name)
        if cls is None:
            cls = self._factory.GetPrototype(self.pool.FindMessageTypeByName(full_name))
            self._classes[full_name] = cls
        return cls


def fail(message):
    print(message, file=sys.stderr, flush=True)
    sys.exit(2)
