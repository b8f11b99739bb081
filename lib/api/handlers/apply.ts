/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (YAML or JSON). The config is
 * merged into the live object by field ownership (fieldmanager/apply.ts); a missing object is
 * created (201). `fieldManager` is required; the config may not carry managedFields.
 */
import { ResourceScope, strategyContext } from './scope';
import { writeObject } from '../response-writer';
import { decodeBody } from '../negotiation';
import { parseBool } from '../query';
import { errors } from '../../meta/api-errors';
import { fieldErrors } from '../../meta/field-errors';
import { ApiObject } from '../../scheme/types';
import { WriteOptions } from '../../registry/options';
import { applyConfig } from '../../fieldmanager/apply';
import { now } from '../../registry/system-fields';
import { enforceFieldValidation, parseFieldValidation, unknownFields } from '../field-validation';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export async function handleApply(s: ResourceScope, raw: Buffer, wopts: WriteOptions): Promise<void> {
  const query = new URLSearchParams(s.ctx.querystring);
  const manager = query.get('fieldManager');
  if (!manager) {
    throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [fieldErrors.required('fieldManager', 'is required for apply patch')]);
  }
  const force = parseBool(query.get('force') ?? undefined, 'force');
  const body = decodeBody(raw, 'application/yaml', ['application/yaml']);
  const def = s.store.def;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('an apply patch must be an object');
  const config = body as ApiObject;
  if (!config.apiVersion || !config.kind) throw errors.badRequest('apiVersion and kind must be set in an apply patch');
  if (config.kind !== def.kind || config.apiVersion !== s.store.apiVersion) {
    throw errors.badRequest(`the apply patch is of kind ${config.apiVersion}/${config.kind}, not ${s.store.apiVersion}/${def.kind}`);
  }
  if (config.metadata?.managedFields !== undefined) throw errors.badRequest('metadata.managedFields must be nil');
  const name = s.info.name as string;
  if (config.metadata?.name && config.metadata.name !== name) {
    throw errors.badRequest(`the name of the object (${config.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (def.namespaced && config.metadata?.namespace && config.metadata.namespace !== s.info.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const problem = def.strategy.checkDecode?.(config);
  if (problem) throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${problem}`);
  enforceFieldValidation(s.ctx, parseFieldValidation(query.get('fieldValidation') ?? undefined), { unknown: unknownFields(config, def.schema), duplicate: [] });

  const withName: ApiObject = { ...config, metadata: { ...(config.metadata ?? {}), name } };
  const apply = (live: ApiObject | undefined) => applyConfig({
    schema: def.schema, live, config: withName, manager, apiVersion: s.store.apiVersion, force, now: now(), subresource: s.info.subresource,
  });
  const rv = config.metadata?.resourceVersion;
  const { object, created } = await s.store.updateWith(strategyContext(s), name, (current) => apply(current), {
    ...wopts, fieldManager: manager, trackFields: false, subresource: s.info.subresource,
    precondition: typeof rv === 'string' && rv ? rv : undefined,
    onMissing: s.info.subresource ? undefined : () => apply(undefined),
  });
  writeObject(s.ctx, created ? 201 : 200, object);
}
