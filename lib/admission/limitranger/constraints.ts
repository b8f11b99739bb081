/**
 * LimitRanger's checks of Kubernetes 1.32, each answering its exact sentence: the minimum and
 * maximum of a resource, the maximum a claim may request, and the largest limit-to-request
 * ratio; and utilerrors.NewAggregate's text for several ("[a, b]", repeated sentences once).
 */
import { Quantity, quantityValue } from '../../meta/quantity';
import { MAX_MILLI_VALUE, ResourceList, enforcedValues, milliValue, show } from './quantities';

/** minConstraint: a request at least `enforced`, and a limit, when set, too. */
export function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  return undefined;
}

/** maxRequestConstraint (claims, whose limits are not looked at): a request of at most `enforced`. */
export function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(name);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

/** maxConstraint: a limit of at most `enforced`, and a request, when set, too. */
export function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

/** limitRequestRatioConstraint: limit / request at most `enforced`, both set and not zero. */
export function limitRequestRatioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = enforcedValues(req, lim, enforced);
  const head = `${name} max limit to request ratio per ${type} is ${show(enforced)}`;
  if (!req || r === 0n) return `${head}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${head}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  // Kubernetes compares in thousandths when the enforced value has a milli value.
  const whole = quantityValue(enforced);
  const [compared, allowed] = whole <= MAX_MILLI_VALUE ? [observed * 1000, Number(milliValue(enforced))] : [observed, Number(whole)];
  return compared > allowed ? `${head}, but provided ratio is ${observed.toFixed(6)}` : undefined;
}

/** utilerrors.NewAggregate(errs).Error(): one sentence alone, several bracketed, repeats once. */
export function aggregate(errs: string[]): string {
  if (errs.length === 1) return errs[0];
  const seen = [...new Set(errs)];
  return seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
}
