/**
 * Request bodies in protobuf (Content-Type application/vnd.kubernetes.protobuf or
 * application/vnd.orch.protobuf), beside negotiation.ts's JSON and YAML: what kubectl's
 * imperative `create` commands send.
 */
import { errors } from '../meta/api-errors';
import { protobufMediaTypes } from '../naming';
import { decodeProtobuf, hasProtobuf } from '../scheme/protobuf';
import { DECODABLE, decodeBody } from './negotiation';
import { depthMessage, MAX_JSON_DEPTH, valueDepthExceeds } from './decode-limits';

/**
 * decodeBody, plus protobuf bodies: a bad prefix or an undecodable body is 400; protobuf for a
 * kind without it (`kind` names the resource's kind) is 415, as for any unreadable media type.
 */
export function decodeRequestBody(raw: Buffer, contentType: string, kind?: { apiVersion: string; kind: string }): unknown {
  if (!protobufMediaTypes.includes(contentType)) {
    if (!DECODABLE.includes(contentType)) throw errors.unsupportedMediaType(contentType, [...DECODABLE, ...protobufMediaTypes]);
    return decodeBody(raw, contentType);
  }
  if (kind && !hasProtobuf(kind.apiVersion, kind.kind)) throw errors.unsupportedMediaType(contentType, DECODABLE);
  const obj = decodeProtobuf(raw);
  // Embedded JSON (RawExtension, JSON, JSONSchemaProps) and recursive messages can nest without bound.
  if (valueDepthExceeds(obj, MAX_JSON_DEPTH)) throw errors.badRequest(`the protobuf body could not be decoded: ${depthMessage(MAX_JSON_DEPTH)}`);
  return obj;
}
