/**
 * Go's `%v` rendering of the numbers that appear in kube-openapi's messages, so bounds read as
 * Kubernetes prints them (`10`, `1.5`, `1e+06`).
 */

/** `%v` of a float64: shortest digits; exponent form when the exponent is < -4 or >= 6 (strconv's rule for shortest %g). */
export function goFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return '0';
  const [mant, expStr] = x.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return String(x);
}

/** A bound as kube-openapi prints it: integers as integers when the value checked is an integer. */
export function goNumber(bound: number, valueIsInteger: boolean): string {
  if (valueIsInteger && Number.isInteger(bound) && Math.abs(bound) < 2 ** 63) return BigInt(bound).toString();
  return goFloat(bound);
}
