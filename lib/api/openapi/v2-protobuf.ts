/**
 * The `/openapi/v2` document as protobuf: gnostic's `openapi.v2.Document`
 * (proto/openapiv2/openapiv2.proto), the form kube-apiserver serves to
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and kubectl reads for
 * `explain --output=plaintext-openapiv2` and client-side validation without OpenAPI v3.
 *
 * Follows gnostic's JSON reading (openapi_v2.ParseDocument, which kube-openapi's ToProtoBinary
 * runs on the JSON document) and Go's proto3 output:
 * - JSON keys are the camelCase of the proto field names; `$ref` is `_ref`; keys `x-*` are the
 *   `vendor_extension` list of NamedAny, in document order, each value an Any whose `yaml` is the
 *   value as YAML text; enum, default and example values are Any the same way;
 * - objects of names (definitions, properties, headers, scopes...) are lists of Named* in document
 *   order; paths are the keys starting with `/`, responses the keys `NNN` and `default`;
 * - the unions: `type` a TypeItem (one string or a list), `items` an ItemsItem of one schema,
 *   `additionalProperties` a schema or a boolean, a response schema a FileSchema only when it is
 *   `type: file`, a parameter a `$ref` (JsonReference) or a body parameter or one of the four
 *   non-body kinds by `in`, a response a `$ref` or a Response, security definitions by type and flow;
 * - proto3 zero values (empty strings, false, 0) are not written, as Go's proto.Marshal.
 * gnostic refuses a document with keys its messages do not have (kube-openapi then serves no
 * protobuf); here such keys are left out and listed in `dropped`.
 */
import path from 'node:path';
import { Field, Root, Type } from 'protobufjs';
import { yaml } from '../../lazy-packages';
import { protoDir } from '../../scheme/protobuf/loader';

let root: Root | undefined;

/** gnostic's openapi.v2 messages, loaded on first use into a Root of their own. */
function openApiV2Root(): Root {
  if (root) return root;
  const next = new Root();
  next.loadSync(path.join(protoDir(), 'openapiv2', 'openapiv2.proto'), { keepCase: true });
  next.resolveAll();
  root = next;
  return root;
}

const types = new Map<string, Type>();

function lookup(name: string): Type {
  let type = types.get(name);
  if (!type) types.set(name, (type = openApiV2Root().lookupType(`openapi.v2.${name}`)));
  return type;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The result of a conversion: the message as a plain object, and the JSON keys it had no field for. */
export interface V2ProtobufResult {
  message: Obj;
  bytes: Uint8Array;
  /** JSON paths (`/definitions/x/properties/y/nullable`) of keys gnostic would refuse, left out. */
  dropped: string[];
}

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The JSON key of a field: `_ref` is `$ref`, others are the camelCase of the proto name. */
function jsonKey(field: Field): string {
  return field.name === '_ref' ? '$ref' : camel(field.name);
}

/** A value as YAML text (gnostic's NewAny: the value marshalled by yaml.v3, block style, indent 4). */
function yamlText(value: unknown): string {
  return yaml().stringify(value, { indent: 4, lineWidth: 0, minContentWidth: 0 });
}

const RESPONSE_CODE = /^([0-9]{3})$|^(default)$/;

/** Keys a FileSchema may have (gnostic's allowed keys); a schema with others is a Schema. */
const FILE_SCHEMA_KEYS = new Set(['default', 'description', 'example', 'externalDocs', 'format', 'readOnly', 'required', 'title', 'type']);

class Converter {
  readonly dropped: string[] = [];
  /** YAML texts by the JSON of their value: documents repeat the same few (actions, GVKs, defaults). */
  private readonly yamls = new Map<string, string>();

  /** An Any holding a value as YAML text. */
  private anyOf(value: unknown): Obj {
    const key = JSON.stringify(value) ?? 'null';
    let text = this.yamls.get(key);
    if (text === undefined) this.yamls.set(key, (text = yamlText(value)));
    return { yaml: text };
  }

  /** A scalar field's value as Go keeps it, or undefined for a proto3 zero or a value of another type. */
  private scalar(field: Field, v: unknown, at: string): unknown {
    switch (field.type) {
      case 'string':
        if (typeof v === 'string') return v || undefined;
        // gnostic reads an integer where a string is due as its text.
        if (typeof v === 'number' && Number.isInteger(v)) return String(v);
        if (v === null) return undefined;
        break;
      case 'bool':
        if (typeof v === 'boolean') return v || undefined;
        break;
      case 'double':
        if (typeof v === 'number') return v || undefined;
        break;
      case 'int64':
        if (typeof v === 'number' && Number.isInteger(v)) return v || undefined;
        break;
      default:
        break;
    }
    this.dropped.push(at);
    return undefined;
  }

  private named(type: Type, name: string, value: unknown, at: string): Obj {
    const valueField = type.fields.value;
    const out: Obj = { name };
    if (valueField.resolvedType instanceof Type) {
      const converted = this.message(valueField.resolvedType as Type, value, at);
      if (converted) out.value = converted;
    } else {
      const s = this.scalar(valueField, value, at);
      if (s !== undefined) out.value = s;
    }
    return out;
  }

  private extensions(json: Obj): Obj[] {
    return Object.keys(json).filter((k) => k.startsWith('x-')).map((k) => ({ name: k, value: this.anyOf(json[k]) }));
  }

  /** A message of `type` from its JSON, or undefined when the JSON is not of its shape. */
  message(type: Type, json: unknown, at: string): Obj | undefined {
    switch (type.name) {
      case 'Any':
        return this.anyOf(json);
      case 'TypeItem':
        if (typeof json === 'string') return { value: [json] };
        if (Array.isArray(json)) return { value: json.filter((v) => typeof v === 'string') };
        break;
      case 'StringArray':
        if (Array.isArray(json)) return { value: json.map((v) => (typeof v === 'string' ? v : '')) };
        break;
      case 'ItemsItem':
        if (isObj(json)) return { schema: [this.message(lookup('Schema'), json, at)] };
        break;
      case 'AdditionalPropertiesItem':
        if (typeof json === 'boolean') return { boolean: json };
        if (isObj(json)) return { schema: this.message(lookup('Schema'), json, at) };
        break;
      case 'SchemaItem':
        if (isObj(json)) {
          const file = json.type === 'file' && Object.keys(json).every((k) => FILE_SCHEMA_KEYS.has(k) || k.startsWith('x-'));
          return file ? { file_schema: this.message(lookup('FileSchema'), json, at) } : { schema: this.message(lookup('Schema'), json, at) };
        }
        break;
      case 'ParametersItem':
      case 'ResponseValue':
        if (isObj(json)) {
          if (typeof json.$ref === 'string') return { json_reference: this.message(lookup('JsonReference'), json, at) };
          return type.name === 'ParametersItem' ? { parameter: this.message(lookup('Parameter'), json, at) } : { response: this.message(lookup('Response'), json, at) };
        }
        break;
      case 'Parameter':
        if (isObj(json)) {
          return json.in === 'body'
            ? { body_parameter: this.message(lookup('BodyParameter'), json, at) }
            : { non_body_parameter: this.message(lookup('NonBodyParameter'), json, at) };
        }
        break;
      case 'NonBodyParameter': {
        const kinds: Record<string, string> = { header: 'header_parameter_sub_schema', formData: 'form_data_parameter_sub_schema', query: 'query_parameter_sub_schema', path: 'path_parameter_sub_schema' };
        const field = isObj(json) && typeof json.in === 'string' ? kinds[json.in] : undefined;
        if (field) return { [field]: this.message(type.fields[field].resolvedType as Type, json, at) };
        break;
      }
      case 'SecurityDefinitionsItem': {
        if (!isObj(json)) break;
        const flows: Record<string, string> = { implicit: 'oauth2_implicit_security', password: 'oauth2_password_security', application: 'oauth2_application_security', accessCode: 'oauth2_access_code_security' };
        const field = json.type === 'basic' ? 'basic_authentication_security' : json.type === 'apiKey' ? 'api_key_security'
          : json.type === 'oauth2' && typeof json.flow === 'string' ? flows[json.flow] : undefined;
        if (field) return { [field]: this.message(type.fields[field].resolvedType as Type, json, at) };
        break;
      }
      default:
        if (!isObj(json)) break;
        return this.fields(type, json, at);
    }
    this.dropped.push(at);
    return undefined;
  }

  /** A message whose fields are JSON keys (or, for the maps, whose one field lists the JSON object's entries). */
  private fields(type: Type, json: Obj, at: string): Obj {
    const out: Obj = {};
    const list = type.fieldsArray;
    // The maps: a single repeated Named* field `additional_properties`, one element per key.
    if (list.length === 1 && list[0].name === 'additional_properties') {
      const named = list[0].resolvedType as Type;
      const entries = Object.keys(json).map((k) => this.named(named, k, json[k], `${at}/${k}`));
      if (entries.length) out.additional_properties = entries;
      return out;
    }
    const used = new Set<string>();
    for (const field of list) {
      if (field.name === 'vendor_extension') {
        const ext = this.extensions(json);
        if (ext.length) out.vendor_extension = ext;
        continue;
      }
      if (type.name === 'Paths' && field.name === 'path') {
        const paths = Object.keys(json).filter((k) => k.startsWith('/'));
        paths.forEach((k) => used.add(k));
        if (paths.length) out.path = paths.map((k) => this.named(field.resolvedType as Type, k, json[k], `${at}/${k}`));
        continue;
      }
      if (type.name === 'Responses' && field.name === 'response_code') {
        const codes = Object.keys(json).filter((k) => RESPONSE_CODE.test(k));
        codes.forEach((k) => used.add(k));
        if (codes.length) out.response_code = codes.map((k) => this.named(field.resolvedType as Type, k, json[k], `${at}/${k}`));
        continue;
      }
      const key = jsonKey(field);
      if (!(key in json)) continue;
      used.add(key);
      const v = json[key];
      const where = `${at}/${key}`;
      if (field.repeated) {
        if (!Array.isArray(v)) {
          this.dropped.push(where);
          continue;
        }
        const items = field.resolvedType instanceof Type
          ? v.map((item, i) => this.message(field.resolvedType as Type, item, `${where}/${i}`) ?? {})
          : v.map((item, i) => (typeof item === 'string' ? item : (this.dropped.push(`${where}/${i}`), '')));
        if (items.length) out[field.name] = items;
      } else if (field.resolvedType instanceof Type) {
        const m = this.message(field.resolvedType, v, where);
        if (m) out[field.name] = m;
      } else {
        const s = this.scalar(field, v, where);
        if (s !== undefined) out[field.name] = s;
      }
    }
    for (const k of Object.keys(json)) if (!used.has(k) && !k.startsWith('x-')) this.dropped.push(`${at}/${k}`);
    return out;
  }
}

/** Converts an OpenAPI v2 JSON document to gnostic's `openapi.v2.Document` and encodes it. */
export function openApiV2ToProtobuf(doc: unknown): V2ProtobufResult {
  const c = new Converter();
  const type = lookup('Document');
  const message = c.message(type, doc, '') ?? {};
  const bytes = type.encode(message).finish();
  return { message, bytes, dropped: c.dropped };
}

/** Decodes gnostic's `openapi.v2.Document` bytes (for tests and tools) as protobufjs plain objects. */
export function decodeOpenApiV2Protobuf(bytes: Uint8Array): Obj {
  const type = lookup('Document');
  return type.toObject(type.decode(bytes), { longs: Number, defaults: false, arrays: false }) as Obj;
}
