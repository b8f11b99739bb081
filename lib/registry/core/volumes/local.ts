/**
 * Sources that live on the node or in the namespace: emptyDir, hostPath, persistentVolumeClaim
 * and the deprecated gitRepo (its directory must be local: no `..`, not absolute).
 */
import { child, fieldErrors } from '../../../meta/field-errors';
import { canonicalQuantity, quantitySign, tryParseQuantity } from '../../../meta/quantity';
import { absent, setDefault, text } from '../json-fields';
import { validateLocalDescendingPath, validatePathNoBacksteps } from './local-path';
import { SourceRule } from './source-rule';

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

const emptyDir: SourceRule = {
  validate: (src, path) => {
    const size = tryParseQuantity(src.sizeLimit);
    return size && quantitySign(size) < 0
      ? [fieldErrors.forbidden(child(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : [];
  },
  defaults: (src) => {
    if (!absent(src.sizeLimit)) src.sizeLimit = canonicalQuantity(src.sizeLimit) ?? src.sizeLimit;
  },
};

const hostPath: SourceRule = {
  validate: (src, path) => {
    const target = text(src, 'path');
    if (!target) return [fieldErrors.required(child(path, 'path'))];
    const errs = validatePathNoBacksteps(target, child(path, 'path'));
    if (typeof src.type === 'string' && !HOST_PATH_TYPES.includes(src.type)) {
      errs.push(fieldErrors.notSupported(child(path, 'type'), src.type, HOST_PATH_TYPES));
    }
    return errs;
  },
  defaults: (src) => setDefault(src, 'type', ''),
};

const persistentVolumeClaim: SourceRule = {
  validate: (src, path) => (text(src, 'claimName') ? [] : [fieldErrors.required(child(path, 'claimName'))]),
};

const gitRepo: SourceRule = {
  validate: (src, path) => [
    ...(text(src, 'repository') ? [] : [fieldErrors.required(child(path, 'repository'))]),
    ...validateLocalDescendingPath(text(src, 'directory'), child(path, 'directory')),
  ],
};

/** Node-local and claim sources by field name. */
export const localFamily: Record<string, SourceRule> = { emptyDir, hostPath, persistentVolumeClaim, gitRepo };
