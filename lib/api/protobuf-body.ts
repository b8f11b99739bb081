/**
 * Request bodies in protobuf (Content-Type application/vnd.kubernetes.protobuf or
 * application/vnd.orch.protobuf), beside negotiation.ts's JSON and YAML: what kubectl's
 * imperative `create` commands send.
 */
import { errors } from '../meta/api-errors';
import { protobufMediaTypes } from '../naming';
import { decodeProtobuf, hasProtobuf } from '../scheme/protobuf';
import { DECODABLE, decodeBody } from './negotiation';

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
  return decodeProtobuf(raw);
}
