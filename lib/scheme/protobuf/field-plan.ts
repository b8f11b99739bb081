/**
 * How each field of a message travels, read once from the protobufjs reflection of the .proto
 * files: scalar or message, repeated or map, the JSON name, and the project's options
 * `(orch.nullable)` and `(orch.inline)` that stand for the Go type behind the field.
 */
import { Field, MapField, Type, types } from 'protobufjs';
import { specialTypeOf } from './special-types';
import { SpecialType } from './special-type-interface';

/** The protobuf wire types. */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

export interface FieldPlan {
  /** The JSON name: the field name, or its `json_name` option where they differ (`$ref`, `x-kubernetes-...`). */
  name: string;
  id: number;
  repeated: boolean;
  /** map<K, V>: `keyType` is K (with its wire type); the value is described by `scalar`/`message`. */
  map: boolean;
  keyType?: string;
  keyWireType?: number;
  /** The scalar type name (`string`, `int64`, `bytes`...), when the (value) type is a scalar. */
  scalar?: string;
  /** The message type, when the (value) type is a message. */
  message?: Type;
  /** Wire type of one (value) element. */
  wireType: number;
  /** A Go pointer: written only when set, zero values read from the wire are kept. */
  nullable: boolean;
  /** An embedded Go struct whose JSON fields sit in the parent object. */
  inline: boolean;
  /** A Go value field without `omitempty`: a zero value read from the wire is kept. */
  noOmitempty: boolean;
}

export interface MessagePlan {
  type: Type;
  /** Full name without the leading dot, e.g. `k8s.io.api.core.v1.ConfigMap`. */
  fullName: string;
  /** Declaration order: the Go struct order, used for JSON output. */
  jsonOrder: FieldPlan[];
  /** Field-number order: the order Go writes fields in. */
  wireOrder: FieldPlan[];
  byId: Map<number, FieldPlan>;
  /** Set for messages whose JSON form is not an object of their fields (Time, IntOrString...). */
  special?: SpecialType;
}

const plans = new WeakMap<Type, MessagePlan>();

function fieldPlan(f: Field): FieldPlan {
  f.resolve();
  const message = f.resolvedType instanceof Type ? f.resolvedType : undefined;
  if (f.resolvedType && !message) throw new Error(`${f.fullName}: enums are not used by Kubernetes' messages`);
  const scalar = message ? undefined : f.type;
  const wireType = message ? WIRE.bytes : (types.basic as Record<string, number>)[f.type];
  if (wireType === undefined) throw new Error(`${f.fullName}: unknown scalar type ${f.type}`);
  const options = f.options ?? {};
  return {
    name: typeof options.json_name === 'string' ? options.json_name : f.name,
    id: f.id,
    repeated: f.repeated,
    map: f instanceof MapField,
    keyType: f instanceof MapField ? f.keyType : undefined,
    keyWireType: f instanceof MapField ? (types.mapKey as Record<string, number>)[f.keyType] : undefined,
    scalar,
    message,
    wireType,
    nullable: options['(orch.nullable)'] === true,
    inline: options['(orch.inline)'] === true,
    noOmitempty: options['(orch.no_omitempty)'] === true,
  };
}

/** The plan of `type`, computed on first use. */
export function planOf(type: Type): MessagePlan {
  let plan = plans.get(type);
  if (!plan) {
    const jsonOrder = type.fieldsArray.map(fieldPlan);
    const fullName = type.fullName.replace(/^\./, '');
    plan = {
      type,
      fullName,
      jsonOrder,
      wireOrder: [...jsonOrder].sort((a, b) => a.id - b.id),
      byId: new Map(jsonOrder.map((f) => [f.id, f])),
      special: specialTypeOf(fullName),
    };
    plans.set(type, plan);
  }
  return plan;
}
