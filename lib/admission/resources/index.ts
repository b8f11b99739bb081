/** The admission plugins of lib/admission/resources, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { namespaceExists } from './namespace-exists';
import { namespaceAutoProvision } from './namespace-auto-provision';
import { StorageClassLister } from './storage-classes';
import { defaultStorageClass } from './default-storage-class';
import { storageObjectInUseProtection } from './storage-object-in-use-protection';
import { persistentVolumeClaimResize } from './persistent-volume-claim-resize';
import { certificateApproval } from './certificate-approval';
import { certificateSigning } from './certificate-signing';
import { certificateSubjectRestriction } from './certificate-subject-restriction';
import { ownerReferencesPermissionEnforcement } from './owner-references-permission-enforcement';
import { denyServiceExternalIPs } from './deny-service-external-ips';

export const resourcePlugins: PluginFactories = {
  NamespaceExists: (d) => namespaceExists(d.namespaces),
  NamespaceAutoProvision: (d) => namespaceAutoProvision(d.namespaces, d.stores, `${d.naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-apiserver`),
  DefaultStorageClass: (d) => defaultStorageClass(new StorageClassLister(d.stores, d.naming)),
  StorageObjectInUseProtection: (d) => storageObjectInUseProtection(d.naming),
  PersistentVolumeClaimResize: (d) => persistentVolumeClaimResize(new StorageClassLister(d.stores, d.naming)),
  CertificateApproval: (d) => certificateApproval(d.authorization, d.naming.group('certificates')),
  CertificateSigning: (d) => certificateSigning(d.authorization, d.naming.group('certificates')),
  CertificateSubjectRestriction: (d) => certificateSubjectRestriction(d.naming.group('certificates'), `${d.naming.labelDomain}/kube-apiserver-client`),
  DenyServiceExternalIPs: () => denyServiceExternalIPs(),
  OwnerReferencesPermissionEnforcement: (d) => ownerReferencesPermissionEnforcement(d.authorization, () => [...d.stores.values()].map((s) => s.def)),
};
