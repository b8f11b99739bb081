/**
 * The protobuf serializer negotiation.ts offers once registered: objects, lists, Status and
 * PartialObjectMetadata(List) in the k8s\0 envelope, watch events as length-prefixed frames.
 * Both media type spellings are answered whatever the flavor.
 */
import { errors } from '../meta/api-errors';
import { protobufMediaTypes } from '../naming';
import { ApiObject } from '../scheme/types';
import { encodeProtobuf, encodeWatchFrame, hasProtobuf } from '../scheme/protobuf';
import { ProtobufSerializer } from './negotiation';

function protobufObject(obj: unknown): ApiObject {
  const o = (obj ?? {}) as ApiObject;
  // Custom resources (and any kind without messages in proto/) have no protobuf form.
  if (!hasProtobuf(o.apiVersion, o.kind)) throw errors.notAcceptable(['application/json', 'application/yaml']);
  return o;
}

export const protobufSerializer: ProtobufSerializer = {
  mediaTypes: protobufMediaTypes,
  encode: (obj) => encodeProtobuf(protobufObject(obj)),
  encodeWatchEvent: (event) => encodeWatchFrame(event.type, protobufObject(event.object)),
  supports: (apiVersion, kind) => hasProtobuf(apiVersion, kind),
};
