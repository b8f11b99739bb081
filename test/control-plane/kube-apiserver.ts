/**
 * kube-apiserver 1.20.2 itself (the cached build of build.sh) as the reference server of the
 * density benchmark: the same kube-apiserver command line as the server gets in the control-plane
 * suite (kube-apiserver-flags.ts), on a port of its own, with an admin client certificate
 * (system:masters) signed by the same cluster CA. Ready once /readyz answers 200.
 */
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../helpers/free-port';
import { readyzOk } from '../helpers/server-process';
import { Component, KUBE_BIN, startComponent } from './components';
import { ControlPlaneFiles, identityKubeconfig } from './identities';
import { kubeApiserverFlags } from './kube-apiserver-flags';

export interface KubeApiserver {
  component: Component;
  url: string;
  /** An admin kubeconfig (CN=kubernetes-admin, O=system:masters). */
  kubeconfigPath: string;
}

/**
 * The machine's first non-loopback IPv4 address: kube-apiserver advertises it in the Endpoints of
 * `default/kubernetes` (with 127.0.0.1 it fails to write them every 10 s). Nothing dials it.
 */
function advertiseAddress(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    const a = addrs?.find((x) => x.family === 'IPv4' && !x.internal);
    if (a) return a.address;
  }
  throw new Error('no non-loopback IPv4 address to advertise');
}

export async function startKubeApiserver(files: ControlPlaneFiles, etcdEndpoint: string, dir: string, logDir: string, timeoutMs = 90_000): Promise<KubeApiserver> {
  const port = await freeLoopbackPort();
  const flags = kubeApiserverFlags(files, etcdEndpoint).map((f) => (f === '--secure-port=0' ? `--secure-port=${port}` : f));
  const component = startComponent('kube-apiserver', [
    path.join(KUBE_BIN, 'kube-apiserver'), ...flags, '--insecure-port=0', `--advertise-address=${advertiseAddress()}`,
  ], logDir);
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = await identityKubeconfig(files, path.join(dir, 'kube-admin.kubeconfig'), url, 'kubernetes-admin', ['system:masters']);
  const deadline = Date.now() + timeoutMs;
  while (!(await readyzOk(kubeconfigPath))) {
    if (component.process.exitCode !== null || Date.now() > deadline) {
      await component.stop();
      throw new Error(`kube-apiserver not ready in ${timeoutMs / 1000} s:\n${component.tail(20)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { component, url, kubeconfigPath };
}
