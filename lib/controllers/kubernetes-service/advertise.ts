/**
 * The address this replica advertises in the `default/kubernetes` endpoints, as kube-apiserver
 * chooses it: --advertise-address; else --bind-address unless it is unspecified (0.0.0.0, ::);
 * else the host's first non-loopback address (IPv4 first). Where kube-apiserver then fails
 * ("unable to find suitable network address"), this server advertises 127.0.0.1 and warns: it
 * binds the loopback address by default, for a single-host server whose clients run beside it.
 */
import os from 'node:os';

export interface AdvertiseChoice { address: string; warning?: string }

export function chooseAdvertiseAddress(advertiseAddress: string, bindAddress: string,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): AdvertiseChoice {
  if (advertiseAddress) return { address: advertiseAddress };
  if (bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::') return { address: bindAddress };
  const all = Object.values(interfaces).flatMap((list) => list ?? []).filter((i) => !i.internal && !i.address.startsWith('fe80:'));
  const chosen = all.find((i) => i.family === 'IPv4') ?? all.find((i) => i.family === 'IPv6');
  if (chosen) return { address: chosen.address };
  return { address: '127.0.0.1', warning: 'no non-loopback address on this host: the kubernetes Service\'s endpoints advertise 127.0.0.1 (set --advertise-address)' };
}
