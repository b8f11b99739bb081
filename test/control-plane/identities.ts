/**
 * The files a Kubernetes control plane is started with, made for the control-plane suite in one
 * directory: the cluster CA (the server's own PKI, made before it starts so that the
 * controller-manager can sign with it), client certificates and kubeconfigs of
 * kube-controller-manager, kube-scheduler, each hollow kubelet and the server's kubelet client,
 * the service-account key pair, and the front-proxy CA with its client pair.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePki, Pki, signClientCertificate, writeKubeconfig } from '../../lib/server/pki';
import { createTestCa, issueTestCert } from '../helpers/test-ca';

export interface ControlPlaneFiles {
  pki: Pki;
  /** The server's data dir (its PKI is `<dataDir>/pki`). */
  dataDir: string;
  saKey: string;
  saPub: string;
  frontProxyCa: string;
  proxyClientCert: string;
  proxyClientKey: string;
  kubeletClientCert: string;
  kubeletClientKey: string;
}

const write = (file: string, pem: string, mode = 0o600): string => {
  writeFileSync(file, pem, { mode });
  return file;
};

/** Makes every file of the list above under `dir` (the server's data dir is `<dir>/data`). */
export async function makeControlPlaneFiles(dir: string): Promise<ControlPlaneFiles> {
  const dataDir = path.join(dir, 'data');
  const pki = await ensurePki(path.join(dataDir, 'pki'), { serverHosts: ['localhost', '127.0.0.1'] });
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const saKey = write(path.join(dir, 'sa.key'), sa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const saPub = write(path.join(dir, 'sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
  const frontProxy = createTestCa('front-proxy-ca');
  const frontProxyCa = write(path.join(dir, 'front-proxy-ca.crt'), frontProxy.certPem, 0o644);
  const proxyClient = issueTestCert(frontProxy, { commonName: 'front-proxy-client' });
  const kubeletClient = signClientCertificate(pki, { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'] });
  return {
    pki, dataDir, saKey, saPub, frontProxyCa,
    proxyClientCert: write(path.join(dir, 'front-proxy-client.crt'), proxyClient.certPem, 0o644),
    proxyClientKey: write(path.join(dir, 'front-proxy-client.key'), proxyClient.keyPem),
    kubeletClientCert: write(path.join(dir, 'kubelet-client.crt'), kubeletClient.certPem, 0o644),
    kubeletClientKey: write(path.join(dir, 'kubelet-client.key'), kubeletClient.keyPem),
  };
}

/**
 * Writes `file`: a kubeconfig for `server` with a client certificate of `commonName` (and
 * `organizations` as groups) signed by the cluster CA.
 */
export async function identityKubeconfig(files: ControlPlaneFiles, file: string, server: string, commonName: string, organizations: string[] = []): Promise<string> {
  const cert = signClientCertificate(files.pki, { commonName, organizations });
  await writeKubeconfig(file, {
    server, caCertPem: files.pki.caCertPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem,
    user: commonName, cluster: 'control-plane', context: commonName,
  });
  return file;
}
