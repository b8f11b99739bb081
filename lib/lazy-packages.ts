/**
 * npm packages a start does not need, loaded at their first use: YAML bodies and configuration
 * files, JWTs and JWSs, CRD schemas, secretbox encryption, CEL's regular expressions. Loading
 * them at every start cost it about a tenth of its module loading (issue 44: start-up time); a
 * configuration flag that needs one still loads it before the server serves.
 */
type Yaml = typeof import('yaml');
type Jose = typeof import('jose');
type AjvModule = typeof import('ajv');
type Nacl = typeof import('tweetnacl');
type Re2 = typeof import('@bufbuild/re2');

const loaded: { yaml?: Yaml; jose?: Jose; ajv?: AjvModule; nacl?: Nacl; re2?: Re2 } = {};

export const yaml = (): Yaml => (loaded.yaml ??= require('yaml') as Yaml);
export const jose = (): Jose => (loaded.jose ??= require('jose') as Jose);
export const ajv = (): AjvModule => (loaded.ajv ??= require('ajv') as AjvModule);
export const nacl = (): Nacl => (loaded.nacl ??= require('tweetnacl') as Nacl);
export const re2 = (): Re2 => (loaded.re2 ??= require('@bufbuild/re2') as Re2);
