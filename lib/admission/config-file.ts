/**
 * --admission-control-config-file: an AdmissionConfiguration (`apiserver.config.orch.io/v1`;
 * Kubernetes' `apiserver.config.k8s.io/v1` and the older `v1alpha1` spellings are read too),
 * JSON or YAML, whose `plugins` entries give each plugin's configuration by `name` with either a
 * `path` to a file (relative paths are taken from the configuration file's directory) or an
 * inline `configuration` object. Any problem stops the start with one line naming the file.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { yaml } from '../lazy-packages';
import { isPluginName } from './plugin-names';

const GROUPS = ['apiserver.config.orch.io', 'apiserver.config.k8s.io', 'apiserver.k8s.io'];
const VERSIONS = ['v1', 'v1alpha1'];

/** Each plugin's configuration: a parsed JSON/YAML object, by plugin name. */
export class PluginConfigs {
  constructor(private readonly byName: ReadonlyMap<string, unknown> = new Map(), readonly file = '') {}

  get(name: string): unknown {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

export class AdmissionConfigError extends Error {}

function readDocument(file: string): unknown {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    // YAML is a superset of JSON: one parser reads both.
    return yaml().parse(raw);
  } catch (err) {
    throw new AdmissionConfigError(`${file} is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks the file; `file` empty: no plugin has a configuration. */
export function readAdmissionConfigFile(file: string): PluginConfigs {
  if (!file) return new PluginConfigs();
  const doc = readDocument(file);
  const where = `admission configuration ${file}`;
  if (!isObject(doc)) throw new AdmissionConfigError(`${where}: not an object`);
  const [group, version] = String(doc.apiVersion ?? '').split('/');
  if (doc.kind !== 'AdmissionConfiguration' || !GROUPS.includes(group) || !VERSIONS.includes(version)) {
    throw new AdmissionConfigError(`${where}: expected kind AdmissionConfiguration of apiserver.config.orch.io/v1, got ${JSON.stringify(doc.kind)} of ${JSON.stringify(doc.apiVersion)}`);
  }
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError(`${where}: plugins must be a list`);
  const byName = new Map<string, unknown>();
  plugins.forEach((entry, i) => {
    const at = `${where}: plugins[${i}]`;
    if (!isObject(entry)) throw new AdmissionConfigError(`${at} must be an object`);
    const name = entry.name;
    if (typeof name !== 'string' || !name) throw new AdmissionConfigError(`${at}.name is required`);
    if (!isPluginName(name)) throw new AdmissionConfigError(`${at}.name: admission plugin ${JSON.stringify(name)} is unknown`);
    if (byName.has(name)) throw new AdmissionConfigError(`${at}.name: plugin ${JSON.stringify(name)} is configured twice`);
    const hasPath = typeof entry.path === 'string' && entry.path !== '';
    const hasInline = entry.configuration !== undefined && entry.configuration !== null;
    if (hasPath && hasInline) throw new AdmissionConfigError(`${at}: path and configuration are mutually exclusive`);
    if (hasPath) {
      const target = path.resolve(path.dirname(file), entry.path as string);
      const config = readDocument(target);
      if (!isObject(config)) throw new AdmissionConfigError(`${at}.path: ${target} is not an object`);
      byName.set(name, config);
    } else if (hasInline) {
      if (!isObject(entry.configuration)) throw new AdmissionConfigError(`${at}.configuration must be an object`);
      byName.set(name, entry.configuration);
    } else {
      byName.set(name, undefined);
    }
  });
  return new PluginConfigs(byName, file);
}
