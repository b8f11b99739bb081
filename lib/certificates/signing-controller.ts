/**
 * The csrsigning controller (kube-controller-manager's, one controller for the four built-in
 * signers): signs each request that is approved, not Failed and not yet signed, when its signer is
 * built in. A request that breaks its signer's rules gets a Failed condition (reason
 * SignerValidationFailure, the rule's message) and a log line; a certificate or a Failed condition
 * is written through the `status` subresource as the server's own identity.
 */
import { readFileSync } from 'fs';
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { approvalState, conditionTime, hasTrueCondition, specOf, usagesOf } from './csr-conditions';
import { CsrController, csrStore } from './csr-controller-base';
import { parseCsr } from '../registry/certificates/csr-parse';
import { builtInSigners, SignerRule } from './signer-rules';
import { certificateTtlMs, SigningAuthority } from './signing-authority';

const LABEL = 'csrsigning controller';

/** The signing CA and lifetime (--cluster-signing-*). */
export interface SigningOptions {
  certFile: string;
  keyFile: string;
  maxTtlMs: number;
}

/** Reads the signing CA files; throws (a start-up error) when they are unreadable. */
export function loadSigningAuthority(certFile: string, keyFile: string): SigningAuthority {
  return new SigningAuthority(readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
}

export class SigningController extends CsrController {
  private readonly signers: Map<string, SignerRule>;
  private readonly fieldManagerName: string;

  constructor(store: GenericStore, naming: Naming, private readonly authority: SigningAuthority, private readonly maxTtlMs: number) {
    super(store, LABEL);
    this.signers = builtInSigners(naming);
    this.fieldManagerName = CsrController.fieldManager(naming.flavor);
  }

  /** The controller when the server serves CertificateSigningRequest, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, authority: SigningAuthority, maxTtlMs: number): SigningController | undefined {
    const store = csrStore(stores, naming.group('certificates'));
    return store ? new SigningController(store, naming, authority, maxTtlMs) : undefined;
  }

  protected interesting(csr: ApiObject): boolean {
    const { approved, denied } = approvalState(csr);
    return approved && !denied && !hasTrueCondition(csr, 'Failed') && this.signers.has(specOf(csr).signerName ?? '');
  }

  protected async handle(csr: ApiObject): Promise<void> {
    if (!this.interesting(csr)) return;
    const name = String(csr.metadata?.name);
    const spec = specOf(csr);
    const rule = this.signers.get(spec.signerName ?? '') as SignerRule;
    const usages = usagesOf(csr);
    // The kind's validation parsed the request on creation: a parse error here cannot heal.
    let parsed;
    try {
      parsed = parseCsr(spec.request);
    } catch (err) {
      logger.warn(`${LABEL}: unable to parse csr`, { csr: name, error: (err as Error).message });
      return;
    }
    const refusal = rule(parsed, usages);
    if (refusal !== undefined) {
      logger.warn(`${LABEL}: request refused by its signer`, { csr: name, signerName: spec.signerName, reason: refusal });
      await this.writeStatus(csr, (cur) => {
        const status = (cur.status ?? {}) as { conditions?: unknown[] };
        const conditions = Array.isArray(status.conditions) ? status.conditions : [];
        return {
          ...cur,
          status: {
            ...status,
            conditions: [...conditions, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refusal, lastUpdateTime: conditionTime() }],
          },
        };
      });
      return;
    }
    const certificate = this.authority.sign(parsed, usages, certificateTtlMs(this.maxTtlMs, spec.expirationSeconds));
    await this.writeStatus(csr, (cur) => ({
      ...cur, status: { ...(cur.status as object ?? {}), certificate: Buffer.from(certificate).toString('base64') },
    }));
    logger.info(`${LABEL}: certificate issued`, { csr: name, signerName: spec.signerName });
  }

  /**
   * An UpdateStatus of the request as read: a request changed since (another approval, a
   * certificate from elsewhere) is a conflict, and the changed request is handled again.
   */
  private async writeStatus(csr: ApiObject, compute: (cur: ApiObject) => ApiObject): Promise<void> {
    await this.store.updateWith({}, String(csr.metadata?.name), compute, {
      dryRun: false, fieldManager: this.fieldManagerName, subresource: 'status', precondition: csr.metadata?.resourceVersion as string,
    });
  }
}
