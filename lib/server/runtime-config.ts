/**
 * `--runtime-config`: which built-in group-versions and resources this server serves, as
 * kube-apiserver resolves it (apiserver pkg/server/resourceconfig). Precedence, lowest first:
 * the defaults of the release served (`servedByDefaultAt`: that of `--emulated-version`, else 1.32),
 * then `api/all`, `api/ga`, `api/beta`, `api/alpha` in that order, then `<group>/<version>` keys,
 * then `<group>/<version>/<resource>` keys. A resource left out is not built into a store: it is
 * gone from discovery and OpenAPI and answers 404, while its objects stay in etcd for when it is
 * switched on again.
 */
import { ResourceDef } from '../scheme/types';
import { Naming } from '../naming';
import { releaseIntroduced } from '../registry/introduced';
import { emulatedMinor } from './kube-flags';

/** The flags the resolution reads (besides the map itself, what needs an absent kind). */
export interface RuntimeConfigInput {
  runtimeConfig: Record<string, boolean>;
  authorizationMode: readonly string[];
  leaderElect: boolean;
  /** --emulated-version: '' (release 1.32) or `1.N`; absent: 1.32. */
  emulatedVersion?: string;
}

/** What `--runtime-config` leaves served, and what it switched off (for the start-up log). */
export interface RuntimeConfigResult {
  resources: ResourceDef[];
  /** `group/version` (core: `v1`) with no resource left. */
  disabledGroupVersions: string[];
  /** `group/version/resource` switched off while other resources of its version stay. */
  disabledResources: string[];
}

type Level = 'ga' | 'beta' | 'alpha';

const LEVELS: Record<Level, RegExp> = { ga: /^v\d+$/, beta: /^v\d+beta\d+$/, alpha: /^v\d+alpha\d+$/ };
/** Applied in this order, so a narrower matcher wins over api/all. */
const MATCHERS: Array<[string, (version: string) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => LEVELS.ga.test(v)],
  ['api/beta', (v) => LEVELS.beta.test(v)],
  ['api/alpha', (v) => LEVELS.alpha.test(v)],
];

const gvString = (group: string, version: string) => (group ? `${group}/${version}` : version);

/**
 * Kube-apiserver's spellings of the core group (`v1`, `api/v1` and anything under them) all
 * mean `/v1`; `api/legacy` is accepted and ignored (deprecated).
 */
export function normalizeRuntimeConfig(raw: Record<string, boolean>): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'api/legacy') continue;
    const core = key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/');
    out.set(core ? '/v1' : key, value);
  }
  return out;
}

/**
 * Whether release 1.`minor` served `def` by default: never an alpha version; not before the release
 * that introduced it (`introducedIn`, lib/registry/introduced.ts); a version Kubernetes removed
 * (`deprecation.removedIn`) in every release before its removal, whatever `servedByDefault` says
 * of 1.32; any other as `servedByDefault` says (absent: on; beta versions introduced after 1.24
 * were off by default in Kubernetes and say so).
 */
export function servedByDefaultAt(def: ResourceDef, minor: number, naming: Naming): boolean {
  if (LEVELS.alpha.test(def.version)) return false;
  const introduced = releaseIntroduced(def, naming);
  if (introduced && before(minor, introduced)) return false;
  const removed = def.deprecation?.removedIn;
  if (removed) return before(minor, removed);
  return def.servedByDefault !== false;
}

/** Whether release 1.`minor` comes before `release`. */
function before(minor: number, [major, releaseMinor]: readonly [number, number]): boolean {
  return major > 1 || (major === 1 && minor < releaseMinor);
}

/**
 * Resolves `--runtime-config` against the built-in resources. Throws an Error with one line,
 * in kube-apiserver's words where it has them, for a key that names nothing served, a bad
 * value, or a switch this server cannot run with (the core group off, RBAC mode without its
 * kinds, leader election without Leases).
 */
export function applyRuntimeConfig(all: readonly ResourceDef[], input: RuntimeConfigInput, naming: Naming): RuntimeConfigResult {
  const overrides = normalizeRuntimeConfig(input.runtimeConfig);
  if (overrides.size === 1 && overrides.get('api/all') === false) {
    throw new Error('invalid runtime-config with only api/all=false');
  }
  const versionsOf = new Map<string, Set<string>>();
  const resourcesOf = new Map<string, Set<string>>();
  for (const d of all) {
    if (!versionsOf.has(d.group)) versionsOf.set(d.group, new Set());
    versionsOf.get(d.group)!.add(d.version);
    const gv = `${d.group}/${d.version}`;
    if (!resourcesOf.has(gv)) resourcesOf.set(gv, new Set());
    resourcesOf.get(gv)!.add(d.resource);
  }

  // Every key is checked before any is applied: the first bad one stops the start.
  const versionKeys: Array<[string, boolean]> = [];
  const resourceKeys: Array<[string, boolean]> = [];
  const unknownGroups = new Set<string>();
  for (const [key, value] of overrides) {
    if (MATCHERS.some(([k]) => k === key)) continue;
    const tokens = key.split('/');
    if ((tokens.length !== 2 && tokens.length !== 3) || tokens[1] === '' || tokens[2] === '') {
      throw new Error(`runtime-config invalid key ${key}`);
    }
    const [group, version, resource] = tokens;
    const versions = versionsOf.get(group);
    if (!versions) { unknownGroups.add(`${group}/${version}`); continue; }
    if (!versions.has(version)) throw new Error(`group version ${gvString(group, version)} that has not been registered`);
    if (resource === undefined) { versionKeys.push([`${group}/${version}`, value]); continue; }
    if (resource.toLowerCase() !== resource) {
      throw new Error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
    }
    // Kubernetes ignores a resource its version lacks; a typo that switches nothing off is
    // worse than a refused start, so it is refused.
    if (!resourcesOf.get(`${group}/${version}`)!.has(resource)) {
      throw new Error(`runtime-config invalid key ${key}: ${gvString(group, version)} has no resource ${resource}`);
    }
    resourceKeys.push([`${group}/${version}/${resource}`, value]);
  }
  if (unknownGroups.size) throw new Error(`unknown api groups ${[...unknownGroups].sort().join(',')}`);

  // What the switches say of a whole version; a version they leave alone keeps each resource's default.
  const versionOn = new Map<string, boolean>();
  for (const [key, matches] of MATCHERS) {
    const value = overrides.get(key);
    if (value === undefined) continue;
    for (const gv of resourcesOf.keys()) if (matches(gv.slice(gv.indexOf('/') + 1))) versionOn.set(gv, value);
  }
  for (const [gv, value] of versionKeys) versionOn.set(gv, value);
  const resourceOn = new Map(resourceKeys);

  const minor = emulatedMinor(input.emulatedVersion ?? '');
  const served = all.filter((d) => {
    const gv = `${d.group}/${d.version}`;
    return resourceOn.get(`${gv}/${d.resource}`) ?? versionOn.get(gv) ?? servedByDefaultAt(d, minor, naming);
  });
  checkNeeds(all, served, input, naming);
  const servedGvs = new Set(served.map((d) => `${d.group}/${d.version}`));
  const disabledGroupVersions = [...resourcesOf.keys()].filter((gv) => !servedGvs.has(gv));
  const disabledResources = all.filter((d) => servedGvs.has(`${d.group}/${d.version}`) && !served.includes(d))
    .map((d) => `${gvString(d.group, d.version)}/${d.resource}`);
  return {
    resources: served,
    disabledGroupVersions: disabledGroupVersions.map((gv) => (gv.startsWith('/') ? gv.slice(1) : gv)),
    disabledResources,
  };
}

/** Refuses switches the server cannot run with (see the module comment). */
function checkNeeds(all: readonly ResourceDef[], served: readonly ResourceDef[], input: RuntimeConfigInput, naming: Naming): void {
  const off = (d: ResourceDef) => !served.includes(d);
  // Namespaces, the bootstrap policy's home and every namespaced kind's parent live in the core group.
  const coreOff = all.filter((d) => d.group === '' && off(d));
  if (coreOff.length) {
    throw new Error(`runtime-config cannot disable the core API group v1 (${coreOff.map((d) => d.resource).join(', ')}): the server needs it; add v1=true`);
  }
  const rbac = naming.group('rbac.authorization');
  const rbacOff = all.filter((d) => d.group === rbac && d.version === 'v1' && off(d));
  if (input.authorizationMode.includes('RBAC') && rbacOff.length) {
    throw new Error(`--authorization-mode=RBAC needs ${rbac}/v1, which --runtime-config disables (${rbacOff.map((d) => d.resource).join(', ')})`);
  }
  const coordination = naming.group('coordination');
  const leases = all.find((d) => d.group === coordination && d.version === 'v1' && d.resource === 'leases');
  if (input.leaderElect && leases && off(leases)) {
    throw new Error(`--leader-elect needs leases.${coordination}/v1, which --runtime-config disables; set --leader-elect=false`);
  }
}
