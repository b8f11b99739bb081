/**
 * The admission plugin names the server knows, in the order they run (Kubernetes'
 * AllOrderedPlugins; webhooks, quota and AlwaysDeny last), and the spec's default-enabled set.
 * --enable-admission-plugins and --disable-admission-plugins name plugins from this list (order
 * irrelevant); any other name stops the start.
 */

export const ORDERED_PLUGINS = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'DenyEscalatingExec',
  'DenyExecOnPrivileged',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodSecurityPolicy',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

export type PluginName = typeof ORDERED_PLUGINS[number];

/** On unless --disable-admission-plugins names them (the spec's list). */
export const DEFAULT_ENABLED: ReadonlySet<PluginName> = new Set<PluginName>([
  'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass',
  'DefaultStorageClass', 'DefaultTolerationSeconds', 'LimitRanger', 'MutatingAdmissionWebhook',
  'NamespaceLifecycle', 'PersistentVolumeClaimResize', 'PodSecurity', 'Priority', 'ResourceQuota',
  'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection', 'TaintNodesByCondition',
  'ValidatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
]);

export function isPluginName(name: string): name is PluginName {
  return (ORDERED_PLUGINS as readonly string[]).includes(name);
}

/** Kubernetes' check of the two flags: the first unknown name, as kube-apiserver words it. */
export function unknownPluginError(enable: readonly string[], disable: readonly string[]): string | undefined {
  const bad = enable.find((n) => !isPluginName(n));
  if (bad !== undefined) return `enable-admission-plugins plugin ${JSON.stringify(bad)} is unknown`;
  const badOff = disable.find((n) => !isPluginName(n));
  if (badOff !== undefined) return `disable-admission-plugins plugin ${JSON.stringify(badOff)} is unknown`;
  return undefined;
}

/** The enabled plugins in running order: the defaults and --enable, less --disable. */
export function enabledPlugins(enable: readonly string[], disable: readonly string[]): PluginName[] {
  return ORDERED_PLUGINS.filter((n) => (DEFAULT_ENABLED.has(n) || enable.includes(n)) && !disable.includes(n));
}
