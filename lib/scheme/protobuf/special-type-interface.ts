/**
 * The contract of a special type (a message whose JSON form is not an object of its fields) and
 * of the generic codec it calls back for ordinary messages. Its own file so special-types.ts,
 * json-schema-types.ts and the codec stand on it without importing each other.
 */
import { Reader, Writer } from 'protobufjs';

/** The generic codec, for special types that hold ordinary messages (a CRD's JSON schemas). */
export interface NestedCodec {
  /** Writes the body of message `typeName` (full name) for a JSON value. */
  write(typeName: string, w: Writer, value: unknown): void;
  /** Reads the body of message `typeName` from `r.pos` to `end`. */
  read(typeName: string, r: Reader, end: number): unknown;
}

export interface SpecialType {
  /** Writes the message body (no tag, no length) for a JSON value; null/undefined is Go's zero value. */
  encode(w: Writer, value: unknown, nested: NestedCodec): void;
  /** The JSON value of the body from `r.pos` to `end`; undefined where Go's JSON shows null. */
  decode(r: Reader, end: number, nested: NestedCodec): unknown;
  /** A decoded value that is Go's zero value (absent unless the field is nullable). */
  isZero?(value: unknown): boolean;
}
