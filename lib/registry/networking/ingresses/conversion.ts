/**
 * Ingress between networking v1 (stored) and v1beta1 (networking.k8s.io/v1beta1 and
 * extensions/v1beta1), as Kubernetes converts it through its internal type
 * (pkg/apis/networking/v1beta1/conversion.go): the spec's `backend` is v1's `defaultBackend`;
 * a backend's `serviceName` is `service.name` and its `servicePort` is `service.port.name` when
 * a string and `service.port.number` when a number; `resource` carries over. A v1beta1 backend
 * has a service when it names one or a port (a string port, even empty, counts). Everything
 * else (metadata, ingressClassName, rules' hosts, paths and pathTypes, TLS, status) has the same
 * shape in both. Read at v1beta1, every backend has `servicePort` (Go always writes the
 * IntOrString struct: `0` without a service); that `0` reads back as no port, so nothing is lost
 * either way.
 */
import { ApiObject } from '../../../scheme/types';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const copy = <T>(v: T): T => structuredClone(v);

/** Convert_v1beta1_IngressBackend_To_networking_IngressBackend. */
export function backendFromV1beta1(b: Json): Json {
  const { serviceName, servicePort, ...rest } = b;
  const out: Json = copy(rest);
  const name = typeof serviceName === 'string' ? serviceName : '';
  const isString = typeof servicePort === 'string';
  const number = typeof servicePort === 'number' ? servicePort : 0;
  if (name || number !== 0 || isString) {
    const port: Json = {};
    if (isString && servicePort) port.name = servicePort;
    if (number) port.number = number;
    out.service = { name, port };
  }
  return out;
}

/** Convert_networking_IngressBackend_To_v1beta1_IngressBackend. */
export function backendToV1beta1(b: Json): Json {
  const { service, ...rest } = b;
  const out: Json = copy(rest);
  let port: string | number = 0;
  if (isObject(service)) {
    if (typeof service.name === 'string' && service.name) out.serviceName = service.name;
    const p = isObject(service.port) ? service.port : {};
    port = typeof p.name === 'string' && p.name ? p.name : typeof p.number === 'number' ? p.number : 0;
  }
  out.servicePort = port;
  return out;
}

/** The spec with every backend (the default one and the rules' paths') converted by `convert`. */
function convertSpec(spec: Json, convert: (b: Json) => Json, from: string, to: string): Json {
  const { [from]: defaultBackend, ...rest } = spec;
  const out: Json = copy(rest);
  if (isObject(defaultBackend)) out[to] = convert(defaultBackend);
  if (Array.isArray(out.rules)) {
    for (const rule of out.rules) {
      const paths = isObject(rule) && isObject(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
      paths.forEach((p, i) => { if (isObject(p) && isObject(p.backend)) paths[i] = { ...p, backend: convert(p.backend) }; });
    }
  }
  return out;
}

function convertIngress(obj: ApiObject, apiVersion: string, convert: (b: Json) => Json, from: string, to: string): ApiObject {
  const { spec, ...rest } = obj;
  const out = { ...copy(rest), apiVersion } as ApiObject;
  if (isObject(spec)) out.spec = convertSpec(spec, convert, from, to);
  else if (spec !== undefined) out.spec = spec;
  return out;
}

/** A v1beta1 Ingress (either group) as the networking v1 Ingress it is stored as (a copy). */
export function ingressFromV1beta1(obj: ApiObject, v1ApiVersion: string): ApiObject {
  return convertIngress(obj, v1ApiVersion, backendFromV1beta1, 'backend', 'defaultBackend');
}

/** A networking v1 Ingress as `apiVersion` (a v1beta1 of either group) serves it (a copy). */
export function ingressToV1beta1(obj: ApiObject, apiVersion: string): ApiObject {
  return convertIngress(obj, apiVersion, backendToV1beta1, 'defaultBackend', 'backend');
}
