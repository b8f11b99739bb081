/**
 * The projected family: configMap, secret, downwardAPI and projected sources. Rules of the
 * spec: modes are 0 to 0777 (0 to 511 in JSON), default 0644; item paths are relative, hold no
 * `..` element and do not start with `..`; projected sources have one type each and distinct
 * paths; a service-account token lives at least 10 minutes (default 1 hour).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { Json, integer, record, records, setDefault, text } from '../json-fields';
import { validateLocalNonReservedPath } from './local-path';
import { VOLUME_FIELD_PATHS, defaultFieldRef, validateObjectFieldSelector, validateResourceFieldSelector } from './downward-api';
import { SourceRule } from './source-rule';

/** 0644, the default mode of projected files. */
export const DEFAULT_FILE_MODE = 0o644;
/** A projected service-account token's default lifetime (seconds). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

function validateFileMode(mode: number | undefined, path: string): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [fieldErrors.invalid(path, mode, FILE_MODE_MSG)] : [];
}

/** KeyToPath: key and path required, path local, mode in range. */
export function validateKeyToPath(kp: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(kp, 'key')) errs.push(fieldErrors.required(child(path, 'key')));
  if (!text(kp, 'path')) errs.push(fieldErrors.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(text(kp, 'path'), child(path, 'path')));
  return [...errs, ...validateFileMode(integer(kp, 'mode'), child(path, 'mode'))];
}

/** DownwardAPIVolumeFile: a local path and exactly one of fieldRef and resourceFieldRef. */
function validateDownwardAPIFile(file: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(file, 'path')) errs.push(fieldErrors.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(text(file, 'path'), child(path, 'path')));
  const fieldRef = record(file, 'fieldRef');
  const resourceFieldRef = record(file, 'resourceFieldRef');
  if (fieldRef) {
    errs.push(...validateObjectFieldSelector(fieldRef, VOLUME_FIELD_PATHS, child(path, 'fieldRef')));
    if (resourceFieldRef) errs.push(fieldErrors.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (resourceFieldRef) {
    errs.push(...validateResourceFieldSelector(resourceFieldRef, child(path, 'resourceFieldRef'), true));
  } else {
    errs.push(fieldErrors.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  return [...errs, ...validateFileMode(integer(file, 'mode'), child(path, 'mode'))];
}

function validateItems(source: Json, path: string): FieldError[] {
  return records(source, 'items').flatMap((kp, i) => validateKeyToPath(kp, index(child(path, 'items'), i)));
}

function defaultDownwardItems(source: Json): void {
  for (const file of records(source, 'items')) {
    const fieldRef = record(file, 'fieldRef');
    if (fieldRef) defaultFieldRef(fieldRef);
  }
}

const withDefaultMode = (source: Json) => setDefault(source, 'defaultMode', DEFAULT_FILE_MODE);

const secret: SourceRule = {
  validate: (src, path) => [
    ...(text(src, 'secretName') ? [] : [fieldErrors.required(child(path, 'secretName'))]),
    ...validateFileMode(integer(src, 'defaultMode'), child(path, 'defaultMode')),
    ...validateItems(src, path),
  ],
  defaults: withDefaultMode,
};

const configMap: SourceRule = {
  validate: (src, path) => [
    ...(text(src, 'name') ? [] : [fieldErrors.required(child(path, 'name'))]),
    ...validateFileMode(integer(src, 'defaultMode'), child(path, 'defaultMode')),
    ...validateItems(src, path),
  ],
  defaults: withDefaultMode,
};

const downwardAPI: SourceRule = {
  // Kubernetes reports item errors on the source path itself, without `items[i]`.
  validate: (src, path) => [
    ...validateFileMode(integer(src, 'defaultMode'), child(path, 'defaultMode')),
    ...records(src, 'items').flatMap((file) => validateDownwardAPIFile(file, path)),
  ],
  defaults: (src) => { withDefaultMode(src); defaultDownwardItems(src); },
};

/** validateProjectionSources: one type per source, distinct item paths across sources. */
function validateProjectionSources(projected: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const claim = (p: string, value: string) => {
    if (!p) return;
    if (seen.has(p)) errs.push(fieldErrors.invalid(path, value, 'conflicting duplicate paths'));
    seen.add(p);
  };
  records(projected, 'sources').forEach((source, i) => {
    const srcPath = index(child(path, 'sources'), i);
    let types = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const ref = record(source, kind);
      if (!ref) continue;
      types++;
      const refPath = child(srcPath, kind);
      if (!text(ref, 'name')) errs.push(fieldErrors.required(child(refPath, 'name')));
      records(ref, 'items').forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, index(child(refPath, 'items'), j)));
        claim(text(kp, 'path'), text(ref, 'name'));
      });
    }
    const downward = record(source, 'downwardAPI');
    if (downward) {
      types++;
      for (const file of records(downward, 'items')) {
        errs.push(...validateDownwardAPIFile(file, child(srcPath, 'downwardAPI')));
        claim(text(file, 'path'), text(file, 'path'));
      }
    }
    const token = record(source, 'serviceAccountToken');
    if (token) {
      types++;
      const expiration = integer(token, 'expirationSeconds') ?? 0;
      const expPath = child(child(srcPath, 'serviceAccountToken'), 'expirationSeconds');
      if (expiration < MIN_TOKEN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid(expPath, expiration, 'may not specify a duration less than 10 minutes'));
      if (expiration > MAX_TOKEN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid(expPath, expiration, 'may not specify a duration larger than 2^32 seconds'));
      // Kubernetes reports the token path on the projected source itself (`projected.path`).
      if (!text(token, 'path')) errs.push(fieldErrors.required(child(path, 'path')));
      else errs.push(...validateLocalNonReservedPath(text(token, 'path'), child(path, 'path')));
    }
    if (types > 1) errs.push(fieldErrors.forbidden(srcPath, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

const projected: SourceRule = {
  validate: (src, path) => [
    ...validateFileMode(integer(src, 'defaultMode'), child(path, 'defaultMode')),
    ...validateProjectionSources(src, path),
  ],
  defaults: (src) => {
    withDefaultMode(src);
    for (const source of records(src, 'sources')) {
      const token = record(source, 'serviceAccountToken');
      if (token) setDefault(token, 'expirationSeconds', DEFAULT_TOKEN_EXPIRATION_SECONDS);
      const downward = record(source, 'downwardAPI');
      if (downward) defaultDownwardItems(downward);
    }
  },
};

/** The projected family's sources by field name. */
export const projectedFamily: Record<string, SourceRule> = { secret, configMap, downwardAPI, projected };
