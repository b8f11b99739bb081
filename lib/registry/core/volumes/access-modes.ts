/**
 * Access modes of volumes and claims: which values are allowed (ReadWriteOncePod behind its
 * gate, and never with another mode) and their short kubectl form (RWO, ROX, RWX, RWOP).
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';

const BASE_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce'];
const RWOP = 'ReadWriteOncePod';

/**
 * Kubernetes' access-mode rules at `path`: at least one (`requiredDetail` is the Required
 * detail, which differs between volumes and claims), each supported, RWOP alone.
 */
export function validateAccessModes(modes: string[] | null | undefined, path: string, allowReadWriteOncePod: boolean,
  requiredDetail?: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = modes ?? [];
  if (!list.length) errs.push(fieldErrors.required(path, requiredDetail));
  const supported = allowReadWriteOncePod ? [...BASE_MODES, RWOP] : BASE_MODES;
  let rwop = false;
  let other = false;
  for (const mode of list) {
    if (!supported.includes(mode)) errs.push(fieldErrors.notSupported(path, mode, supported));
    if (mode === RWOP) rwop = true;
    else if (BASE_MODES.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** Whether ReadWriteOncePod is among the modes (an old object keeps using it when the gate is off). */
export const usesReadWriteOncePod = (modes: string[] | null | undefined): boolean => (modes ?? []).includes(RWOP);

/** kubectl's ACCESS MODES cell: `RWO,ROX,RWX,RWOP` for the modes present, in that order. */
export function accessModesString(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], [RWOP, 'RWOP']]
    .filter(([mode]) => list.includes(mode)).map(([, short]) => short).join(',');
}
