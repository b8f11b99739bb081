/**
 * Where a connect request goes, found at request time from the stored objects, as
 * kube-apiserver's strategies find it:
 *  - a Node's kubelet (GetConnectionInfo): the first of the Node's status.addresses in the order
 *    of --kubelet-preferred-address-types, port status.daemonEndpoints.kubeletEndpoint.Port
 *    (10250 when absent);
 *  - a pod's container (LogLocation, streamLocation): the container named, or the pod's only one;
 *    the kubelet of spec.nodeName;
 *  - pods/proxy, nodes/proxy, services/proxy (ResourceLocation): `name`, `name:port` or
 *    `scheme:name:port`; the pod's IP, the node's kubelet (or another port of the node), a ready
 *    endpoint of the service that is a live pod.
 * A kind this server does not serve yet answers 404 for the object, as a missing object does.
 */
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { ApiError, errors } from '../meta/api-errors';
import { storeKey, type StoreIndex } from '../registry/store-index';
import type { ApiObject } from '../scheme/types';
import { DEFAULT_KUBELET_PORT, type KubeletClient } from './client';
import { plainError } from './errors';

export interface Backend {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** The kubelet itself (its client certificate and CA apply), or another backend (a pod, an endpoint). */
  kubelet: boolean;
  /** The kubelet's certificate is not checked (pods/log?insecureSkipTLSVerifyBackend=true). */
  skipVerify?: boolean;
}

/** Kubernetes' NewServiceUnavailable: 503, no details and no Retry-After. */
const serviceUnavailable = (message: string) => new ApiError(503, 'ServiceUnavailable', message);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The object from its core/v1 store; 404 when missing, or when the kind is not served. */
export async function getCore(stores: StoreIndex, resource: string, namespace: string | undefined, name: string): Promise<ApiObject> {
  const store = stores.get(storeKey('', 'v1', resource));
  if (!store) throw errors.notFound({ group: '', resource }, name);
  return store.get(namespace, name);
}

/** The kubelet of node `nodeName` (kube's NodeConnectionInfoGetter). */
export async function kubeletOf(stores: StoreIndex, client: KubeletClient, nodeName: string): Promise<Backend> {
  const node = await getCore(stores, 'nodes', undefined, nodeName);
  const status = obj(node.status);
  const addresses = arr(status.addresses).map(obj);
  let host: string | undefined;
  for (const type of client.preferredAddressTypes) {
    host = addresses.find((a) => a.type === type && typeof a.address === 'string')?.address as string | undefined;
    if (host) break;
  }
  if (!host) {
    const known = addresses.map((a) => `{${String(a.type ?? '')} ${String(a.address ?? '')}}`).join(' ');
    throw plainError(`no preferred addresses found; known addresses: [${known}]`);
  }
  const reported = Number(obj(obj(status.daemonEndpoints).kubeletEndpoint).Port);
  return { scheme: client.scheme, host, port: Number.isInteger(reported) && reported > 0 ? reported : DEFAULT_KUBELET_PORT, kubelet: true };
}

/** Every container name of the pod, in VisitContainers' order: init, regular, ephemeral. */
function containerNames(pod: ApiObject): string[] {
  const spec = obj(pod.spec);
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)]
    .map((c) => obj(c).name).filter((n): n is string => typeof n === 'string');
}

/** kube's validateContainer: the container asked for, or the pod's only container. */
export function chooseContainer(pod: ApiObject, name: string, container: string | undefined): string {
  if (!container) {
    const regular = arr(obj(pod.spec).containers).map((c) => obj(c).name);
    if (regular.length === 1 && typeof regular[0] === 'string') return regular[0];
    if (regular.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The pod's node name, or undefined when it is not yet bound. */
export function nodeNameOf(pod: ApiObject): string | undefined {
  const n = obj(pod.spec).nodeName;
  return typeof n === 'string' && n ? n : undefined;
}

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`, scheme http, https or empty. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) [name] = parts;
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (!name || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

function portNumber(port: string, what: string): number {
  const n = /^[0-9]{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(n > 0 && n <= 65535)) throw errors.badRequest(`invalid ${what} port ${JSON.stringify(port)}`);
  return n;
}

/** Go's IP.IsGlobalUnicast: not unspecified, loopback, link-local, multicast or broadcast. */
export function isGlobalUnicast(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
    const [a, b] = ip.split('.').map(Number);
    return !(a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224);
  }
  if (v === 6) {
    const l = ip.toLowerCase();
    if (l === '::' || l === '::1') return false;
    if (/^fe[89ab]/.test(l) || l.startsWith('ff')) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(l);
    return mapped ? isGlobalUnicast(mapped[1]) : true;
  }
  return false;
}

/** pods/proxy: the pod's IP and the port asked for (else its first container port). */
export async function podProxyBackend(stores: StoreIndex, namespace: string, id: string): Promise<Backend> {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw errors.badRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = await getCore(stores, 'pods', namespace, parts.name);
  let port = parts.port;
  if (!port) {
    for (const c of arr(obj(pod.spec).containers).map(obj)) {
      const first = obj(arr(c.ports)[0]).containerPort;
      if (first !== undefined) { port = String(first); break; }
    }
  }
  const status = obj(pod.status);
  const ip = typeof status.podIP === 'string' && status.podIP ? status.podIP : String(obj(arr(status.podIPs)[0]).ip ?? '');
  if (!isGlobalUnicast(ip)) throw errors.badRequest('address not allowed');
  const scheme = parts.scheme === 'https' ? 'https' : 'http';
  return { scheme, host: ip, port: port ? portNumber(port, 'pod') : scheme === 'https' ? 443 : 80, kubelet: false };
}

/** kube's isProxyableHostname: every address the name resolves to is global unicast. */
async function checkProxyable(host: string): Promise<void> {
  let ips: string[];
  try {
    ips = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch (err) {
    throw errors.badRequest(`lookup ${host}: ${(err as Error).message}`);
  }
  if (!ips.length || ips.some((ip) => !isGlobalUnicast(ip))) throw errors.badRequest('address not allowed');
}

/** nodes/proxy: the node's kubelet, or another port of the node (then a plain proxy backend). */
export async function nodeProxyBackend(stores: StoreIndex, client: KubeletClient, id: string): Promise<Backend> {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw errors.badRequest(`invalid node request ${JSON.stringify(id)}`);
  const kubelet = await kubeletOf(stores, client, parts.name);
  await checkProxyable(kubelet.host);
  if (!parts.port || parts.port === String(kubelet.port)) return kubelet;
  const scheme = parts.scheme === 'https' ? 'https' : 'http';
  return { scheme, host: kubelet.host, port: portNumber(parts.port, 'node'), kubelet: false };
}

/** services/proxy: a ready address of the service's Endpoints that is a live pod's, on the port asked for. */
export async function serviceProxyBackend(stores: StoreIndex, namespace: string, id: string): Promise<Backend> {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw errors.badRequest(`invalid service request ${JSON.stringify(id)}`);
  const { name } = parts;
  let portName = parts.port;
  if (/^-?[0-9]+$/.test(portName)) {
    const svc = await getCore(stores, 'services', namespace, name);
    const wanted = Number(portName);
    const match = arr(obj(svc.spec).ports).map(obj).find((p) => p.port === wanted);
    if (!match) throw serviceUnavailable(`no service port ${wanted} found for service ${JSON.stringify(name)}`);
    portName = typeof match.name === 'string' ? match.name : '';
  }
  const eps = await getCore(stores, 'endpoints', namespace, name);
  const subsets = arr(eps.subsets).map(obj);
  if (!subsets.length) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
  const start = Math.floor(Math.random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(start + i) % subsets.length];
    const addresses = arr(ss.addresses).map(obj);
    if (!addresses.length) continue;
    for (const p of arr(ss.ports).map(obj)) {
      if ((typeof p.name === 'string' ? p.name : '') !== portName) continue;
      const seed = Math.floor(Math.random() * addresses.length);
      for (let t = 0; t < addresses.length; t++) {
        const addr = addresses[(seed + t) % addresses.length];
        if (!(await isPodAddress(stores, addr))) continue;
        const scheme = parts.scheme === 'https' ? 'https' : 'http';
        return { scheme, host: String(addr.ip), port: Number(p.port), kubelet: false };
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
}

/** kube's isValidAddress: only addresses of live pods are proxied to. */
async function isPodAddress(stores: StoreIndex, addr: Obj): Promise<boolean> {
  const ref = obj(addr.targetRef);
  if (ref.kind !== 'Pod' || typeof ref.name !== 'string') return false;
  try {
    const pod = await getCore(stores, 'pods', typeof ref.namespace === 'string' ? ref.namespace : undefined, ref.name);
    return arr(obj(pod.status).podIPs).some((p) => obj(p).ip === addr.ip);
  } catch {
    return false;
  }
}
