/**
 * The command line of the server in the control-plane suite: the flags a kube-apiserver 1.20 of
 * such a cluster is started with (kubeadm's set, on loopback), and apart from them the few of the
 * server's own (data dir, flavor, which of its controllers run). `unsupported` finds the
 * kube-apiserver flags the server does not take, and the --runtime-config group versions it does
 * not have, so that the suite can name them in a failing test and still run the rest.
 */
import { FLAGS } from '../../lib/server/flag-table';
import { builtinResources } from '../../lib/registry/builtin';
import { namingFor } from '../../lib/naming';
import type { ControlPlaneFiles } from './identities';

/** The service network (kubeadm's default). */
export const SERVICE_CIDR = '10.96.0.0/12';

/**
 * Group versions that 1.20's components use and that are off by default in a 1.32 server:
 * the scheduler waits for a policy/v1beta1 PodDisruptionBudget informer, and the controller-manager's
 * EndpointSlice controllers use discovery.k8s.io/v1beta1. (Its CronJob controller uses batch/v1beta1,
 * which 1.32 no longer has: the controller-manager skips that controller, and nothing here needs it.)
 */
export const RUNTIME_CONFIG = ['policy/v1beta1', 'discovery.k8s.io/v1beta1'];

export function kubeApiserverFlags(f: ControlPlaneFiles, etcdEndpoint: string): string[] {
  return [
    `--etcd-servers=${etcdEndpoint}`,
    '--secure-port=0', '--bind-address=127.0.0.1',
    `--tls-cert-file=${f.pki.serverCertFile}`, `--tls-private-key-file=${f.pki.serverKeyFile}`,
    `--client-ca-file=${f.pki.caCertFile}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    '--enable-bootstrap-token-auth=true',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${f.saPub}`, `--service-account-signing-key-file=${f.saKey}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--allow-privileged=true',
    `--requestheader-client-ca-file=${f.frontProxyCa}`, '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${f.proxyClientCert}`, `--proxy-client-key-file=${f.proxyClientKey}`,
    `--kubelet-client-certificate=${f.kubeletClientCert}`, `--kubelet-client-key=${f.kubeletClientKey}`,
    '--kubelet-preferred-address-types=Hostname',
    // kube-apiserver 1.20's flag: hollow kubelets serve plain HTTP (kubemark gives them no TLS).
    '--kubelet-https=false',
    `--runtime-config=${RUNTIME_CONFIG.map((gv) => `${gv}=true`).join(',')}`,
  ];
}

/**
 * Not kube-apiserver's: the data dir (the PKI made before the start is in it), Kubernetes' names,
 * and none of the server's own controllers, which kube-controller-manager runs here (two copies of
 * the namespace, garbage-collector, token, CSR or root-CA controllers would fight over the same
 * objects). Leader election stays on: the server's controllers elect on a Lease of their own
 * name (`orch-apiserver-controller-manager`), which leaves `kube-system/kube-controller-manager` to
 * kube-controller-manager.
 */
export function serverOwnFlags(f: ControlPlaneFiles): string[] {
  const off = ['namespace', 'garbagecollector', 'ephemeral-volume', 'serviceaccount', 'serviceaccount-token',
    'root-ca-cert-publisher', 'clusterrole-aggregation', 'pvc-protection', 'pv-protection',
    'csrsigning', 'csrapproving', 'csrcleaner', 'tokencleaner', 'bootstrapsigner', 'resourcequota',
    'validatingadmissionpolicy-status-controller'];
  return [`--data-dir=${f.dataDir}`, '--flavor=kubernetes', `--controllers=${off.map((c) => `-${c}`).join(',')}`];
}

/** Splits `flags` into those the server takes and those it does not have; drops unknown runtime-config keys. */
export function unsupported(flags: string[]): { accepted: string[]; refused: string[]; unknownRuntimeConfig: string[] } {
  const known = new Set(FLAGS.map((f) => f.name));
  const naming = namingFor('kubernetes');
  const served = new Set(builtinResources(naming).map((r) => `${r.group}/${r.version}`));
  const accepted: string[] = [];
  const refused: string[] = [];
  const unknownRuntimeConfig: string[] = [];
  for (const f of flags) {
    const name = /^--([^=]+)/.exec(f)![1];
    if (!known.has(name)) { refused.push(name); continue; }
    if (name === 'runtime-config') {
      const entries = f.slice('--runtime-config='.length).split(',');
      const keep = entries.filter((e) => served.has(e.split('=')[0]));
      unknownRuntimeConfig.push(...entries.filter((e) => !keep.includes(e)).map((e) => e.split('=')[0]));
      if (keep.length) accepted.push(`--runtime-config=${keep.join(',')}`);
      continue;
    }
    accepted.push(f);
  }
  return { accepted, refused, unknownRuntimeConfig };
}

