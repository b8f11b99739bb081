/**
 * Kubernetes' CEL environments, one per place Kubernetes evaluates CEL (CRD validation rules, admission
 * policies, webhook match conditions, authentication and authorization configuration). An environment
 * is the standard library plus Kubernetes' libraries plus the variables that place declares; it is
 * built once per declaration set and compiles any number of expressions.
 *
 * Engine: @marcbachmann/cel-js (parser, type checker, evaluator, optional types); Kubernetes' libraries
 * are registered on it from lib/cel/libraries/.
 */

import { Environment } from '@marcbachmann/cel-js';
import { celEquals, modelForClass } from './schema-values';
import { modelOf, withTypeAndObjectMeta, type CelSchema, type NodeModel } from './schema-model';

/** Where an expression is evaluated: decides which libraries and limits apply. */
export type CelPurpose = 'crd' | 'admission-policy' | 'match-condition' | 'authentication' | 'authorization';

/** A variable an environment declares, with its CEL type ('dyn', 'bool', 'string', 'map(string, dyn)' as 'map<string, dyn>', a declared object type). */
export interface CelVariable {
  name: string;
  /** A CEL type name as the engine spells it: 'dyn', 'int', 'string', 'bool', 'list<string>', 'map<string, dyn>', or the name of a type in `types`. */
  type: string;
  /** The schema the variable is typed from (declarationForSchema's input): its size bounds shape the cost estimate. Object-typed variables find it from their type; give it for list, map or scalar roots. */
  schema?: CelSchema;
  /** The schema is a resource root (as declarationForSchema's resourceRoot option). */
  resourceRoot?: boolean;
}

/** An object type the environment declares (typing self from a schema declares one per object node). */
export interface CelObjectType {
  name: string;
  fields: Record<string, string>;
  /** The class of this type's values (lib/cel/schema-types gives one per schema node); `==` on the type compares them as Kubernetes does. */
  ctor?: new (raw: Record<string, unknown>) => unknown;
}

export interface CelEnvironmentOptions {
  purpose: CelPurpose;
  variables: CelVariable[];
  types?: CelObjectType[];
}

/** A built environment: the engine's, with what it was built from. */
export interface CelEnvironment {
  readonly purpose: CelPurpose;
  readonly engine: Environment;
  readonly variables: ReadonlyArray<CelVariable>;
  /** The schema model of each variable typed from a schema (the cost estimate reads their size bounds). */
  readonly variableModels: ReadonlyMap<string, NodeModel | undefined>;
  /** The schema model of each object type declared from a schema, by type name. */
  readonly typeModels: ReadonlyMap<string, NodeModel | undefined>;
}

/** Installs libraries on an engine environment; lib/cel/libraries registers Kubernetes' here. */
export type CelLibraryInstaller = (env: Environment, purpose: CelPurpose) => void;
const installers: CelLibraryInstaller[] = [];

/** Adds a library to every environment built after this call (lib/cel/libraries/index.ts calls it once per library). */
export function registerLibrary(install: CelLibraryInstaller): void {
  installers.push(install);
  bases.clear();
}

/**
 * One engine per purpose with every library installed, cloned for each environment: installing the
 * libraries costs ~20 ms, a clone ~0.4 ms, and a clone keeps every library and replaced overload.
 */
const bases = new Map<CelPurpose, Environment>();
function baseEngine(purpose: CelPurpose): Environment {
  let base = bases.get(purpose);
  if (!base) {
    // Kubernetes turns on HomogeneousAggregateLiterals ([1, "a"] does not compile there); the engine's
    // homogeneous mode also refuses literals cel-go's accepts (mixed values behind format's %s, the
    // conformance suite's), so literals stay heterogeneous here: a rule refused by Kubernetes for a mixed
    // literal is accepted here, never the reverse.
    base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false });
    for (const install of installers) install(base, purpose);
    bases.set(purpose, base);
  }
  return base;
}

export function celEnvironment(options: CelEnvironmentOptions): CelEnvironment {
  const engine = baseEngine(options.purpose).clone();
  for (const t of options.types ?? []) {
    if (t.ctor) {
      engine.registerType(t.name, { ctor: t.ctor, fields: t.fields });
      engine.registerOperator(`${t.name} == ${t.name}`, (a: unknown, b: unknown) => celEquals(a, b));
    } else {
      engine.registerType(t.name, { fields: t.fields });
    }
  }
  for (const v of options.variables) engine.registerVariable(v.name, v.type);
  const byName = new Map((options.types ?? []).map((t) => [t.name, modelForClass(t.ctor)] as const));
  const variableModels = new Map(
    options.variables.map((v) => [v.name, v.schema ? modelOf(v.resourceRoot ? withTypeAndObjectMeta(v.schema) : v.schema) : byName.get(v.type)] as const),
  );
  return { purpose: options.purpose, engine, variables: options.variables, variableModels, typeModels: byName };
}
