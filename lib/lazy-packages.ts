/**
 * npm packages a start does not need, loaded at their first use: YAML bodies and configuration
 * files, JWTs and JWSs, CRD schemas, secretbox encryption, CEL's regular expressions, certificate
 * requests and the certificates signed for them. Loading
 * them at every start cost it about a tenth of its module loading (issue 44: start-up time); a
 * configuration flag that needs one still loads it before the server serves.
 */
type Yaml = typeof import('yaml');
type Jose = typeof import('jose');
type AjvModule = typeof import('ajv');
type Nacl = typeof import('tweetnacl');
type Re2 = typeof import('@bufbuild/re2');
type NodeForge = typeof import('node-forge');

const loaded: { yaml?: Yaml; jose?: Jose; ajv?: AjvModule; nacl?: Nacl; re2?: Re2; forge?: NodeForge } = {};

export const yaml = (): Yaml => (loaded.yaml ??= require('yaml') as Yaml);
export const jose = (): Jose => (loaded.jose ??= require('jose') as Jose);
export const ajv = (): AjvModule => (loaded.ajv ??= require('ajv') as AjvModule);
export const nacl = (): Nacl => (loaded.nacl ??= require('tweetnacl') as Nacl);
export const re2 = (): Re2 => (loaded.re2 ??= require('@bufbuild/re2') as Re2);
export const forge = (): NodeForge => (loaded.forge ??= require('node-forge') as NodeForge);
