/**
 * Kubernetes' protobuf wire format for the kinds of proto/: the k8s\0 envelope, watch frames,
 * and the kinds that have it. Objects stay JSON everywhere else; this converts at the edges.
 */
export { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf, hasProtobufPrefix } from './envelope';
export { decodeWatchEvent, encodeWatchFrame, splitWatchFrames } from './watch-frame';
export { hasProtobuf } from './kinds';
export { loadProtoRoot } from './loader';
