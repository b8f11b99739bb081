/**
 * The restricted level's checks (Pod Security Standards). Restricted also runs every baseline
 * check a restricted revision does not override (evaluator.ts).
 */
import {
  ALLOWED, Check, CheckFn, CheckResult, PodView, containersOf, containersPhrase, isSet, isWindowsPod, joinQuote, obj, objs,
  podSecurityContext, pluralize, sorted, str,
} from './check';
import { CAPABILITIES_BASELINE, HOST_PATH_VOLUMES, SECCOMP_BASELINE, validSeccompType } from './checks-baseline';

/** From 1.25 a pod whose spec.os.name is windows passes (those fields are Linux-only). */
const exceptWindows = (check: CheckFn): CheckFn => (pod, names) => (isWindowsPod(pod.spec) ? ALLOWED : check(pod, names));

function allowPrivilegeEscalation({ spec }: PodView): CheckResult {
  const bad = containersOf(spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => c.name);
  if (!bad.length) return ALLOWED;
  return {
    allowed: false, reason: 'allowPrivilegeEscalation != false',
    detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
  };
}

function runAsNonRoot({ spec }: PodView): CheckResult {
  const badSetters: string[] = [];
  let podNonRoot = false;
  const podValue = podSecurityContext(spec)?.runAsNonRoot;
  if (isSet(podValue)) {
    if (podValue !== true) badSetters.push('pod');
    else podNonRoot = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const v = c.securityContext?.runAsNonRoot;
    if (isSet(v)) {
      if (v !== true) explicit.push(c.name);
    } else if (!podNonRoot) {
      implicit.push(c.name);
    }
  }
  if (explicit.length) badSetters.push(containersPhrase(explicit));
  if (badSetters.length) {
    return { allowed: false, reason: 'runAsNonRoot != true', detail: `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  }
  if (implicit.length) {
    return { allowed: false, reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  }
  return ALLOWED;
}

function runAsUser({ spec }: PodView): CheckResult {
  const badSetters: string[] = [];
  if (podSecurityContext(spec)?.runAsUser === 0) badSetters.push('pod');
  const bad = containersOf(spec).filter((c) => c.securityContext?.runAsUser === 0).map((c) => c.name);
  if (bad.length) badSetters.push(containersPhrase(bad));
  if (!badSetters.length) return ALLOWED;
  return { allowed: false, reason: 'runAsUser=0', detail: `${badSetters.join(' and ')} must not set runAsUser=0` };
}

function seccompRestricted({ spec }: PodView): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  let podSet = false;
  const podProfile = obj(podSecurityContext(spec)?.seccompProfile);
  if (podProfile) {
    if (!validSeccompType(str(podProfile.type))) {
      badSetters.push('pod');
      badValues.add(str(podProfile.type));
    } else {
      podSet = true;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const profile = obj(c.securityContext?.seccompProfile);
    if (profile) {
      if (!validSeccompType(str(profile.type))) {
        explicit.push(c.name);
        badValues.add(str(profile.type));
      }
    } else if (!podSet) {
      implicit.push(c.name);
    }
  }
  if (explicit.length) badSetters.push(containersPhrase(explicit));
  if (badSetters.length) {
    return {
      allowed: false, reason: 'seccompProfile',
      detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(badValues))}`,
    };
  }
  if (implicit.length) {
    return {
      allowed: false, reason: 'seccompProfile',
      detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    };
  }
  return ALLOWED;
}

function capabilitiesRestricted({ spec }: PodView): CheckResult {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const forbidden = new Set<string>();
  for (const c of containersOf(spec)) {
    const caps = obj(c.securityContext?.capabilities);
    if (!caps) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!(Array.isArray(caps.drop) && caps.drop.some((d) => d === 'ALL'))) missingDropAll.push(c.name);
    let added = false;
    for (const cap of Array.isArray(caps.add) ? caps.add : []) {
      if (cap !== 'NET_BIND_SERVICE') {
        added = true;
        forbidden.add(str(cap));
      }
    }
    if (added) adding.push(c.name);
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sorted(forbidden))} in securityContext.capabilities.add`);
  if (!details.length) return ALLOWED;
  return { allowed: false, reason: 'unrestricted capabilities', detail: details.join('; ') };
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** Restricted volume sources, in the order Kubernetes names the first one a volume has. */
const RESTRICTED_VOLUME_SOURCES = ['hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs',
  'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk',
  'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos'];

function restrictedVolumes({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of objs(spec.volumes)) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => isSet(v[s]))) continue;
    // A volume without a source is an emptyDir (Kubernetes' default).
    if (Object.keys(v).every((k) => k === 'name' || !isSet(v[k]))) continue;
    bad.push(str(v.name));
    types.add(RESTRICTED_VOLUME_SOURCES.find((s) => isSet(v[s])) ?? 'unknown');
  }
  if (!bad.length) return ALLOWED;
  return {
    allowed: false, reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} `
      + `${pluralize('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sorted(types))}`,
  };
}

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation', level: 'restricted',
    versions: [{ minMinor: 8, check: allowPrivilegeEscalation }, { minMinor: 25, check: exceptWindows(allowPrivilegeEscalation) }],
  },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minMinor: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minMinor: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted', level: 'restricted',
    versions: [
      { minMinor: 19, check: seccompRestricted, overrides: [SECCOMP_BASELINE] },
      { minMinor: 25, check: exceptWindows(seccompRestricted), overrides: [SECCOMP_BASELINE] },
    ],
  },
  {
    id: 'capabilities_restricted', level: 'restricted',
    versions: [
      { minMinor: 22, check: capabilitiesRestricted, overrides: [CAPABILITIES_BASELINE] },
      { minMinor: 25, check: exceptWindows(capabilitiesRestricted), overrides: [CAPABILITIES_BASELINE] },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minMinor: 0, check: restrictedVolumes, overrides: [HOST_PATH_VOLUMES] }] },
];
