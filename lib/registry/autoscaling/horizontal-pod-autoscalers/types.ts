/** The JSON shapes of HorizontalPodAutoscaler this folder reads, loosely typed as they arrive. */
import { ApiObject } from '../../../scheme/types';

/** A JSON object of unknown content. */
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
export const objectOr = (v: unknown): Json => (isObject(v) ? v : {});
export const arrayOr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const present = (v: unknown): boolean => v !== undefined && v !== null;

export const specOf = (obj: ApiObject): Json => objectOr(obj.spec);
export const statusOf = (obj: ApiObject): Json => objectOr(obj.status);
